#!/usr/bin/env bash
# Instructions per request of `livery serve` binaries, counted by callgrind (repeatable whatever else the machine
# does): the total for N keep-alive `GET /bench` on one connection, minus the same binary's total for 0 requests,
# divided by N. One event loop, no skins, log level warning (no request log lines).
#
# Usage: bench/metrics/instructions-per-request.sh BINARY...   (N=3000 by default)
# ROUTE=package counts a package download instead (issue 13 point 9): the ~30 KB skin of bench/package/run.sh
# (PACKAGE_KB=25, SKIN_SEED=7) is served, one poll finds its `packageUrl` (in both runs, so it cancels out), and
# the N requests are `GET <packageUrl>`.
# Binaries are stripped first: valgrind 3.19 cannot read the DWARF 5 of a static Swift release build.
# To price the HTTP metrics observer, build once as is and once with the `configuration.observer = ...` line of
# Sources/livery/ServeCommand.swift removed, and pass both (bench/README.md has the result).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-3000}
ROUTE=${ROUTE:-bench}
BODY=$PWD/bench/http/body.json
SKIN=""
if [ "$ROUTE" = package ]; then
  SKIN=$(mktemp -d)
  trap 'rm -rf "$SKIN"' EXIT
  (source bench/lib.sh && bench_demo_skin "$SKIN/bench" "$(python3 -c "print(${PACKAGE_KB:-25} / 1000)")" "${SKIN_SEED:-7}")
fi
command -v valgrind >/dev/null || { echo "missing valgrind" >&2; exit 1; }
measure() { # binary requests -> total instructions
  local bin=$1 count=$2 dir; dir=$(mktemp -d); mkdir -p "$dir/skins"
  [ -z "$SKIN" ] || cp -r "$SKIN/bench" "$dir/skins/bench"
  strip -o "$dir/livery" "$bin"
  bin="$dir/livery"
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$bin" serve --host 127.0.0.1 --port 0 --log-level warning \
     --bench-body "$BODY" --data-dir "$dir/data" --skins-dir "$dir/skins" --event-loops 1 >"$dir/log" 2>&1 &
  local pid=$! port=""
  for _ in $(seq 1 600); do port=$(sed -n 's/^LIVERY_LISTENING .*:\([0-9]*\)$/\1/p' "$dir/log"); [ -n "$port" ] && break; sleep 0.1; done
  # A package route needs the catalog loaded (its package built) before the poll.
  if [ -n "$SKIN" ]; then
    for _ in $(seq 1 600); do curl -fs -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 0.1; done
  fi
  python3 - "$port" "$count" "$ROUTE" <<'PY'
import json, socket, sys
port, count, route = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
buffer = b""
def exchange(request):
    global buffer
    s.sendall(request)
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            length = int([l for l in buffer[:end].split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
            if len(buffer) >= end + 4 + length:
                body = buffer[end + 4:end + 4 + length]
                buffer = buffer[end + 4 + length:]
                return body
        buffer += s.recv(65536)
path = "/bench"
if route == "package":
    query = "app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
    path = json.loads(exchange(b"GET /api/v1/skin?" + query.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"))["packageUrl"]
request = b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"
for _ in range(count):
    exchange(request)
s.close()
PY
  kill -TERM $pid; wait $pid || true
  callgrind_annotate "$dir/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}'
  rm -rf "$dir"
}
for bin in "$@"; do
  base=$(measure $bin 0); loaded=$(measure $bin $N)
  echo "$bin: $(( (loaded - base) / N )) instructions per request ($base at rest, $loaded after $N requests)"
done
