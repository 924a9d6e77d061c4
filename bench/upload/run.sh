#!/usr/bin/env bash
# Peak memory of the real server while it accepts an upload whose config.json is 16 MB, and what it keeps after.
#
#   bench/upload/run.sh                                   (builds the release binary first, as lib.sh does)
#   SKIP_BUILD=1 LIVERY_BIN=.build/debug/livery bench/upload/run.sh   (any built binary, no build)
#   UPLOADS=5 SIZE=16000000 MAX_MULTIPLE=10 MAX_KEPT_MULTIPLE=2 SLACK_MIB=0 bench/upload/run.sh
#
# Starts `livery serve` on 127.0.0.1 (port 0) with an empty skins folder, uploads the skin from
# bench/upload/make-config.py UPLOADS times (each a different version: its title changes), and after each reads
# the process's /proc/PID/status: VmHWM (peak resident set since start) and VmRSS (resident now). Prints the
# peak growth over the idle server as a multiple of the config.json size, and fails (exit 1) when it is above
# MAX_MULTIPLE times the size plus SLACK_MIB (fixed allocator and thread overhead), or when the memory kept after
# the last upload is above MAX_KEPT_MULTIPLE times the size plus SLACK_MIB: memory must be given back, not
# merely bounded. The defaults are the bounds docs/ADMIN-API.md states (Uploads) for a large config; about 5 MiB of the
# growth is fixed, so a small SIZE needs SLACK_MIB.
source "$(dirname "$0")/../lib.sh"
bench_require python3 curl zip
SIZE=${SIZE:-16000000}
UPLOADS=${UPLOADS:-3}
MAX_MULTIPLE=${MAX_MULTIPLE:-10}
MAX_KEPT_MULTIPLE=${MAX_KEPT_MULTIPLE:-2}
SLACK_MIB=${SLACK_MIB:-0}
LIVERY=${LIVERY_BIN:-$LIVERY}
bench_build
bench_workdir livery-upload-bench

mkdir -p "$BENCH_WORK/skins" "$BENCH_WORK/data"
python3 "$ROOT/bench/upload/make-config.py" "$BENCH_WORK/skin" "$SIZE" >&2
CONFIG_BYTES=$(stat -c %s "$BENCH_WORK/skin/config.json")
"$LIVERY" token create bench --role editor >"$BENCH_WORK/token.txt"
TOKEN=$(sed -n 1p "$BENCH_WORK/token.txt")
sed -n 2p "$BENCH_WORK/token.txt" >"$BENCH_WORK/tokens"

"$LIVERY" serve --host 127.0.0.1 --port 0 --skins-dir "$BENCH_WORK/skins" --data-dir "$BENCH_WORK/data" \
    --tokens-file "$BENCH_WORK/tokens" --log-level warning >"$BENCH_WORK/out.log" 2>&1 &
PID=$!
PIDS+=("$PID")
for _ in $(seq 1 300); do grep -q LIVERY_LISTENING "$BENCH_WORK/out.log" && break; sleep 0.1; done
PORT=$(sed -n 's/^LIVERY_LISTENING .*:\([0-9]*\)$/\1/p' "$BENCH_WORK/out.log")
[ -n "$PORT" ] || { cat "$BENCH_WORK/out.log" >&2; exit 1; }
until curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do sleep 0.1; done

kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB$/\1/p" "/proc/$PID/status"; }
IDLE=$(kib VmRSS)
echo "config.json: $CONFIG_BYTES bytes; idle server RSS: $((IDLE / 1024)) MiB ($LIVERY)"
printf '%-8s %8s %12s %12s %10s\n' upload status "peak MiB" "after MiB" seconds
for n in $(seq 1 "$UPLOADS"); do
    # A different title each time, so each upload is a new version (an identical one is answered "unchanged").
    python3 - "$BENCH_WORK/skin/skin.json" "$n" <<'PY'
import json, sys
json.dump({"id": "memory-bench", "title": f"Memory bench {sys.argv[2]}", "app": "demo"}, open(sys.argv[1], "w"))
PY
    rm -f "$BENCH_WORK/skin.zip"
    (cd "$BENCH_WORK/skin" && zip -q -r -X "$BENCH_WORK/skin.zip" .)
    START=$(date +%s.%N)
    STATUS=$(curl -sS -o "$BENCH_WORK/answer.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/zip' --data-binary @"$BENCH_WORK/skin.zip" "http://127.0.0.1:$PORT/admin/v1/skins")
    END=$(date +%s.%N)
    [ "$STATUS" = 201 ] || { echo "upload $n answered $STATUS: $(head -c 600 "$BENCH_WORK/answer.json")" >&2; exit 1; }
    printf '%-8s %8s %12s %12s %10.2f\n' "$n" "$STATUS" "$(($(kib VmHWM) / 1024))" "$(($(kib VmRSS) / 1024))" \
        "$(echo "$END - $START" | bc)"
done
PEAK=$(kib VmHWM)
AFTER=$(kib VmRSS)
python3 - "$CONFIG_BYTES" "$IDLE" "$PEAK" "$AFTER" "$MAX_MULTIPLE" "$MAX_KEPT_MULTIPLE" "$SLACK_MIB" <<'PY'
import sys
size, idle, peak, after = int(sys.argv[1]), *(int(v) * 1024 for v in sys.argv[2:5])
limit, kept_limit, slack = float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7]) * 2**20
growth, kept = peak - idle, after - idle
print(f"peak growth over idle: {growth / 2**20:.0f} MiB = {growth / size:.2f}x config.json "
      f"(limit {limit}x + {slack // 2**20} MiB = {(limit * size + slack) / 2**20:.0f} MiB)")
print(f"kept after the uploads: {kept / 2**20:.0f} MiB = {kept / size:.2f}x config.json "
      f"(limit {kept_limit}x + {slack // 2**20} MiB = {(kept_limit * size + slack) / 2**20:.0f} MiB)")
sys.exit(0 if growth <= limit * size + slack and kept <= kept_limit * size + slack else 1)
PY
