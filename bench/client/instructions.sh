#!/usr/bin/env bash
# Diagnostic for the poll's CPU cost (not a test, not a peer comparison): user-space instructions per
# `GET /api/v1/skin`, counted by valgrind's callgrind while wrk sends the same varying polls as run.sh.
#
#   bench/client/instructions.sh           (builds the shipped binary first; SKIP_BUILD=1 to reuse it)
#
# Instruction counts do not depend on what else the machine is doing, so unlike req/s on a shared 2-core box they
# show a 2% change reliably; use them to compare commits, and run.sh for the ratios against nginx.
# Knobs: DURATION (8s), CONNECTIONS (8), PACKAGE_MB (3), LOG_LEVEL (warning; info counts the request lines too),
# ROUTE (poll; package counts downloads of the package a poll names instead: with PACKAGE_MB=0.025 SKIN_SEED=7, the
# ~26 KB package of bench/package), PROFILE=1 to keep the callgrind file and print the top functions. Valgrind cannot read DWARF 5, so the binary is
# copied without debug info (symbols stay).
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-8s}
CONNECTIONS=${CONNECTIONS:-8}
PACKAGE_MB=${PACKAGE_MB:-3}

bench_require wrk python3 curl valgrind callgrind_control
bench_workdir livery-instructions
WORK=$BENCH_WORK
bench_build

bench_demo_skin "$WORK/skins/bench" "$PACKAGE_MB" ${SKIN_SEED:+"$SKIN_SEED"}

cp "$LIVERY" "$WORK/livery"
strip -g "$WORK/livery"
PORT=$(free_port)
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/callgrind.out" \
    "$WORK/livery" serve --host 127.0.0.1 --port "$PORT" --log-level "${LOG_LEVEL:-warning}" --skins-dir "$WORK/skins" \
    --data-dir "$WORK/data" >"$WORK/livery.log" 2>&1 &
VALGRIND=$!
PIDS+=("$VALGRIND")
for _ in $(seq 1 600); do
    curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" && break
    sleep 0.2
done
BASE="http://127.0.0.1:$PORT"
WRK_TARGET=(-s "$ROOT/bench/client/vary.lua" "$BASE")
if [ "${ROUTE:-poll}" = package ]; then
    PACKAGE_PATH=$(curl -fs "$BASE/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["packageUrl"])')
    WRK_TARGET=("$BASE$PACKAGE_PATH")
fi
# Warm up (the first polls fill caches and build nothing), then count only while the measured run lasts.
BENCH_PATH=/api/v1/skin wrk -t1 -c"$CONNECTIONS" -d2s "${WRK_TARGET[@]}" >/dev/null
callgrind_control -i on "$VALGRIND" >/dev/null 2>&1
REQUESTS=$(BENCH_PATH=/api/v1/skin wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "${WRK_TARGET[@]}" \
    | awk '/requests in/ { print $1 }')
callgrind_control -i off "$VALGRIND" >/dev/null 2>&1
callgrind_control -d "$VALGRIND" >/dev/null 2>&1
kill "$VALGRIND"
wait "$VALGRIND" 2>/dev/null || true
INSTRUCTIONS=$(cat "$WORK"/callgrind.out* | awk '/^(summary|totals):/ { total += $2 } END { print total }')
echo "${ROUTE:-poll} requests $REQUESTS; user-space instructions $INSTRUCTIONS; per request $((INSTRUCTIONS / REQUESTS))"
if [ -n "${PROFILE:-}" ]; then
    OUT=$(ls -S "$WORK"/callgrind.out* | head -1)
    cp "$OUT" /tmp/livery-poll.callgrind
    echo "== top functions by own instructions (kept in /tmp/livery-poll.callgrind)"
    callgrind_annotate /tmp/livery-poll.callgrind 2>/dev/null | awk '/file:function/ { go = 1; getline; next } go && NF' \
        | head -25 | sed 's/ \[[^]]*\]$//' | swift demangle --simplified
fi
