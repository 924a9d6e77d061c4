/// A TLS client in Python's `ssl` module (OpenSSL underneath, none of Livery's code), run by TLS tests as
/// `python3 -c TLSProbe.script <command> …`. Every command prints one JSON object on its last line.
///
/// - `get PORT CA PATH [MAXVERSION]`: one request, verifying against CA with SNI `localhost`; status, ALPN, version,
///   the served certificate's common name, sha256 and length of the body. MAXVERSION `1.2` caps the version.
/// - `resume PORT CA MAXVERSION`: two connections, the second offering the first's session: whether it was reused.
/// - `slow PORT CA PATH`: downloads PATH reading 4 KiB every few milliseconds for the first 2 MiB (the server's
///   socket fills and its TLS writes must wait), then at full speed; sha256 and length of the body.
/// - `dribble PORT CA`: sends the ClientHello one byte at a time, finishes the handshake and asks GET /hello.
/// - `plain PORT`: sends a plain-HTTP request to the TLS port; what came back and whether the server closed.
/// - `fuzz PORT SEED COUNT`: COUNT connections of hostile bytes (random bytes, a real ClientHello truncated or with
///   bytes flipped, plain HTTP), each half-closed after sending; whether the server closed every one within 5 s.
/// - `stall PORT COUNT`: COUNT connections sending part of a ClientHello and then nothing: seconds until the server
///   closed each (it must, at its header timeout).
/// - `reload PORT CA PID CERT KEY NEWCERT NEWKEY`: keeps a connection open and a stream of new connections going
///   while it copies NEWCERT/NEWKEY over CERT/KEY and sends SIGHUP to PID; waits until new connections see the
///   new certificate, then checks the first connection still answers and nothing failed (asks GET /healthz).
public enum TLSProbe {
    public static let script = #"""
        import hashlib, json, os, random, shutil, signal, socket, ssl, sys, threading, time

        def context(ca, maxversion=None):
            ctx = ssl.create_default_context(cafile=ca)
            ctx.set_alpn_protocols(["http/1.1"])
            if maxversion == "1.2":
                ctx.maximum_version = ssl.TLSVersion.TLSv1_2
            return ctx

        def connect(port, ctx, session=None, receive_buffer=None):
            raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if receive_buffer:
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            raw.settimeout(10)
            raw.connect(("127.0.0.1", port))
            return ctx.wrap_socket(raw, server_hostname="localhost", session=session)

        def read_response(sock, pace=None):
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    raise Exception("closed before the head: %r" % data)
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            digest = hashlib.sha256()
            digest.update(body)
            received = len(body)
            while received < length:
                size = 4096 if pace and received < 2 << 20 else 262144
                chunk = sock.recv(min(size, length - received))
                if not chunk:
                    raise Exception("closed after %d of %d body bytes" % (received, length))
                digest.update(chunk)
                received += len(chunk)
                if pace and received < 2 << 20:
                    time.sleep(pace)
            return int(lines[0].split(" ")[1]), digest.hexdigest(), received

        def request(sock, path, pace=None):
            sock.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % path).encode())
            return read_response(sock, pace)

        def common_name(sock):
            for field in sock.getpeercert()["subject"]:
                for key, value in field:
                    if key == "commonName":
                        return value
            return None

        def client_hello():
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
            try:
                tls.do_handshake()
            except ssl.SSLWantReadError:
                pass
            return outgoing.read()

        def closed_by_server(sock, seconds):
            sock.settimeout(seconds)
            try:
                while sock.recv(65536):
                    pass
                return True
            except socket.timeout:
                return False
            except OSError:
                return True

        command, args = sys.argv[1], sys.argv[2:]
        if command == "get":
            port, ca, path = int(args[0]), args[1], args[2]
            sock = connect(port, context(ca, args[3] if len(args) > 3 else None))
            status, digest, length = request(sock, path)
            print(json.dumps({"status": status, "alpn": sock.selected_alpn_protocol(), "version": sock.version(),
                              "cn": common_name(sock), "sha256": digest, "length": length}))
        elif command == "resume":
            port, ca, maxversion = int(args[0]), args[1], args[2]
            ctx = context(ca, maxversion)
            first = connect(port, ctx)
            request(first, "/hello")
            session = first.session
            first.close()
            second = connect(port, ctx, session)
            status, _, _ = request(second, "/hello")
            print(json.dumps({"status": status, "reused": second.session_reused, "version": second.version()}))
        elif command == "slow":
            port, ca, path = int(args[0]), args[1], args[2]
            sock = connect(port, context(ca), receive_buffer=65536)
            status, digest, length = request(sock, path, pace=0.0005)
            print(json.dumps({"status": status, "sha256": digest, "length": length}))
        elif command == "dribble":
            port, ca = int(args[0]), args[1]
            ctx = context(ca)
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
            raw = socket.create_connection(("127.0.0.1", port), timeout=10)
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            first = True
            while True:
                try:
                    tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    pending = outgoing.read()
                    if first:
                        for byte in pending:
                            raw.sendall(bytes([byte]))
                            time.sleep(0.002)
                        first = False
                    elif pending:
                        raw.sendall(pending)
                    data = raw.recv(65536)
                    if not data:
                        raise Exception("server closed during the handshake")
                    incoming.write(data)
            tls.write(b"GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            raw.sendall(outgoing.read())
            answer = b""
            while True:
                try:
                    answer += tls.read(65536)
                except ssl.SSLWantReadError:
                    data = raw.recv(65536)
                    if not data:
                        break
                    incoming.write(data)
                except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                    break
                if answer.endswith(b"hello"):
                    break
            print(json.dumps({"answer": answer.decode("latin-1")[:40], "bodyEnds": answer.endswith(b"hello")}))
        elif command == "plain":
            port = int(args[0])
            raw = socket.create_connection(("127.0.0.1", port), timeout=10)
            raw.sendall(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            received = b""
            raw.settimeout(5)
            closed = False
            try:
                while True:
                    chunk = raw.recv(65536)
                    if not chunk:
                        closed = True
                        break
                    received += chunk
            except ConnectionResetError:
                closed = True
            except socket.timeout:
                pass
            print(json.dumps({"closed": closed, "received": received.decode("latin-1")}))
        elif command == "fuzz":
            port, seed, count = int(args[0]), int(args[1]), int(args[2])
            rng = random.Random(seed)
            hello = client_hello()
            kinds = {}
            open_after = 0
            for index in range(count):
                kind = rng.choice(["random", "truncated", "flipped", "plain", "record"])
                if kind == "random":
                    payload = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 2048)))
                elif kind == "truncated":
                    payload = hello[:rng.randint(1, len(hello) - 1)]
                elif kind == "flipped":
                    data = bytearray(hello)
                    for _ in range(rng.randint(1, 8)):
                        data[rng.randrange(len(data))] = rng.getrandbits(8)
                    payload = bytes(data)
                elif kind == "plain":
                    payload = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                else:
                    length = rng.randint(0, 70000)
                    payload = bytes([0x16, 0x03, rng.randint(0, 4), length >> 8 & 0xFF, length & 0xFF]) + hello[5:]
                kinds[kind] = kinds.get(kind, 0) + 1
                raw = socket.create_connection(("127.0.0.1", port), timeout=10)
                try:
                    raw.sendall(payload)
                    raw.shutdown(socket.SHUT_WR)
                except OSError:
                    # The server already closed (and reset) the connection.
                    pass
                if not closed_by_server(raw, 5):
                    open_after += 1
                raw.close()
            print(json.dumps({"count": count, "leftOpen": open_after, "kinds": kinds}))
        elif command == "stall":
            port, count = int(args[0]), int(args[1])
            hello = client_hello()
            sockets = []
            start = time.monotonic()
            for index in range(count):
                raw = socket.create_connection(("127.0.0.1", port), timeout=10)
                raw.sendall(hello[: (index * 37) % (len(hello) - 1) + 1])
                sockets.append(raw)
            waits = []
            for raw in sockets:
                closed = closed_by_server(raw, 15)
                waits.append(round(time.monotonic() - start, 2) if closed else None)
            print(json.dumps({"closedAfter": waits}))
        elif command == "reload":
            port, ca, pid = int(args[0]), args[1], int(args[2])
            cert, key, new_cert, new_key = args[3:7]
            ctx = context(ca)
            kept = connect(port, ctx)
            request(kept, "/healthz")
            before = common_name(kept)
            failures, rounds, seen = [], [0], set()
            stop = threading.Event()
            def traffic():
                while not stop.is_set():
                    try:
                        sock = connect(port, ctx)
                        status, _, _ = request(sock, "/healthz")
                        if status != 200:
                            failures.append("status %d" % status)
                        seen.add(common_name(sock))
                        sock.close()
                        rounds[0] += 1
                    except Exception as error:
                        failures.append(repr(error))
            worker = threading.Thread(target=traffic)
            worker.start()
            time.sleep(0.2)
            shutil.copyfile(new_key, key + ".next")
            shutil.copyfile(new_cert, cert + ".next")
            os.replace(key + ".next", key)
            os.replace(cert + ".next", cert)
            os.kill(pid, signal.SIGHUP)
            deadline = time.monotonic() + 20
            after = None
            while time.monotonic() < deadline:
                sock = connect(port, ctx)
                request(sock, "/healthz")
                after = common_name(sock)
                sock.close()
                if after != before:
                    break
                time.sleep(0.05)
            time.sleep(0.2)
            stop.set()
            worker.join()
            status, _, _ = request(kept, "/healthz")
            print(json.dumps({"before": before, "after": after, "keptStatus": status, "keptCertificate": common_name(kept),
                              "failures": failures[:5], "rounds": rounds[0]}))
        """#
}
