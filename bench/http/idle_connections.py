#!/usr/bin/env python3
"""Opens N keep-alive connections to 127.0.0.1:PORT, makes one request on each, holds them all idle,
checks that a new client is still served, and reports the server's RSS (from /proc/PID/status).

Usage: idle_connections.py PORT COUNT PID [PATH]
Prints one line: `idle_connections=N rss_before_kb=... rss_held_kb=... new_client_status=200`.
"""
import resource
import selectors
import socket
import sys
import time


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main():
    port, count, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    path = sys.argv[4] if len(sys.argv) > 4 else "/bench"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 1024), hard))
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    before = rss_kb(pid)

    selector = selectors.DefaultSelector()
    sockets = []
    deadline = time.monotonic() + 120
    # Connect in batches so the listen backlog never overflows.
    pending = {}
    for index in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        sockets.append(sock)
        pending[sock.fileno()] = sock
        selector.register(sock, selectors.EVENT_WRITE)
        if len(pending) >= 500 or index == count - 1:
            received = {}
            while pending and time.monotonic() < deadline:
                for key, events in selector.select(timeout=5):
                    sock = key.fileobj
                    if events & selectors.EVENT_WRITE:
                        sock.send(request)
                        selector.modify(sock, selectors.EVENT_READ)
                    elif events & selectors.EVENT_READ:
                        data = sock.recv(65536)
                        if not data:
                            raise RuntimeError("server closed an idle connection")
                        received[sock.fileno()] = received.get(sock.fileno(), b"") + data
                        buffer = received[sock.fileno()]
                        head_end = buffer.find(b"\r\n\r\n")
                        if head_end >= 0:
                            length = 0
                            for line in buffer[:head_end].split(b"\r\n")[1:]:
                                name, _, value = line.partition(b":")
                                if name.strip().lower() == b"content-length":
                                    length = int(value)
                            if len(buffer) >= head_end + 4 + length:
                                if not buffer.startswith(b"HTTP/1.1 200"):
                                    raise RuntimeError("unexpected response: %r" % buffer[:40])
                                selector.unregister(sock)
                                del pending[sock.fileno()]
            if pending:
                raise RuntimeError(f"{len(pending)} connections got no response in time")

    time.sleep(1.0)  # let the server settle (freed request buffers, coalesced allocations)
    held = rss_kb(pid)

    probe = socket.create_connection(("127.0.0.1", port), timeout=5)
    probe.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
    reply = probe.recv(4096)
    probe.close()
    status = reply.split(b" ")[1].decode() if reply.startswith(b"HTTP/1.1 ") else "none"

    # All still open? A closed connection reads as EOF without blocking.
    alive = 0
    for sock in sockets:
        try:
            data = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            alive += 0 if data == b"" else 1
        except BlockingIOError:
            alive += 1
    for sock in sockets:
        sock.close()
    print(f"idle_connections={alive} rss_before_kb={before} rss_held_kb={held} new_client_status={status}")


if __name__ == "__main__":
    main()
