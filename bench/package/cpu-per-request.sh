#!/usr/bin/env bash
# CPU time per request (user + system, from /proc) of livery binaries and nginx serving the same bytes, measured
# with wrk in interleaved rounds: a cost per request that a busy, shared machine skews much less than req/s.
#
#   bench/package/cpu-per-request.sh BINARY...        (e.g. a build of main and one of a branch)
#
# Knobs: TARGET (package: the ~30 KB package of bench/package/run.sh at 16 connections; poll: the poll answer at
# 64 connections, as bench/client), CONNECTIONS (16) and CONNECTIONS_POLL (64) to change those, ROUNDS (3),
# DURATION (5s).
source "$(dirname "$0")/../lib.sh"

TARGET=${TARGET:-package}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
[ "$#" -gt 0 ] || { echo "usage: $0 BINARY..." >&2; exit 1; }
bench_require wrk nginx python3 curl
bench_workdir livery-cpu-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_demo_skin "$WORK/skins/bench" 0.025 7
POLL="/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
CONNECTIONS=${CONNECTIONS:-16}
[ "$TARGET" = poll ] && CONNECTIONS=${CONNECTIONS_POLL:-64}

NAMES=() SERVER_PIDS=() URLS=()
index=0
for binary in "$@"; do
    index=$((index + 1))
    dir="$WORK/livery-$index"
    mkdir -p "$dir/data"
    : >"$dir/log"
    "$binary" serve --host 127.0.0.1 --port 0 --log-level warning --skins-dir "$WORK/skins" --data-dir "$dir/data" \
        --event-loop-affinity "$AFFINITY" \
        >"$dir/log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    port=""
    for _ in $(seq 1 600); do
        port=$(sed -n 's/^LIVERY_LISTENING .*:\([0-9]*\)$/\1/p' "$dir/log")
        [ -n "$port" ] && curl -fs -o /dev/null "http://127.0.0.1:$port/readyz" && break
        sleep 0.05
    done
    path=$POLL
    if [ "$TARGET" = package ]; then
        path=$(curl -fs "http://127.0.0.1:$port$POLL" | python3 -c 'import json, sys; print(json.load(sys.stdin)["packageUrl"])')
    fi
    NAMES+=("livery-$index") SERVER_PIDS+=("$pid") URLS+=("http://127.0.0.1:$port$path")
done

mkdir -p "$WORK/www"
curl -fs "${URLS[0]}" >"$WORK/www/served"
chmod 644 "$WORK/www/served"
cp "$WORK/www/served" "$WORK/www/answer.json"
cp "$WORK/www/served" "$WORK/www/package.zip"
bench_start_nginx "$WORK"
NGINX_URL="$NGINX_BASE/package.zip"
[ "$TARGET" = poll ] && NGINX_URL="$NGINX_BASE/bench"
NAMES+=(nginx) SERVER_PIDS+=("$(pgrep -P "$NGINX_PID" | tr '\n' ' ')") URLS+=("$NGINX_URL")

echo "== $TARGET: wrk -t2 -c$CONNECTIONS -d$DURATION; $ROUNDS interleaved rounds; load average$(uptime | sed 's/.*load average//')" >&2
for round in $(seq 1 "$ROUNDS"); do
    for slot in "${!NAMES[@]}"; do
        read -r -a pids <<<"${SERVER_PIDS[$slot]}"
        before=$(cpu_ticks "${pids[@]}")
        output=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" "${URLS[$slot]}")
        after=$(cpu_ticks "${pids[@]}")
        requests=$(echo "$output" | awk '/requests in/ { print $1 }')
        rate=$(echo "$output" | awk '/Requests\/sec/ { print $2 }')
        python3 -c "print(f'round $round ${NAMES[$slot]}: {$rate:.0f} req/s, {($after - $before) / $(getconf CLK_TCK) * 1e6 / $requests:.2f} us CPU per request')"
    done
done
