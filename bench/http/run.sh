#!/usr/bin/env bash
# HTTP benchmark (not a test): Livery vs nginx (static file, 2 workers) vs a Hummingbird 2 app, all serving the
# same ~250-byte JSON body on 127.0.0.1, measured with wrk in one run; then Livery's RSS with 10,000 idle
# keep-alive connections. See bench/HISTORY.md for what each number means and every recorded run.
#
# Environment knobs: DURATION (10s), CONNECTIONS (64), THREADS (2), ROUNDS (3: each server is measured ROUNDS
# times, interleaved, and the median round by req/s is reported), IDLE (10000), SKIP_BUILD (unset).
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
IDLE=${IDLE:-10000}
BODY="$ROOT/bench/http/body.json"

bench_require wrk nginx python3 curl
bench_workdir livery-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_build peer

# Starts Livery; sets LIVERY_PID and LIVERY_PORT. An empty skins folder and a scratch data folder: the run measures
# the HTTP server and writes nothing into the working tree.
start_livery() { bench_start_livery "$WORK" --bench-body "$BODY"; }

start_livery
LIVERY_URL="http://127.0.0.1:$LIVERY_PORT/bench"

NGINX_PORT=$(free_port)
mkdir -p "$WORK/www"
cp "$BODY" "$WORK/www/body.json"
chmod 644 "$WORK/www/body.json"
sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$NGINX_PORT|g" "$ROOT/bench/http/nginx.conf" >"$WORK/nginx.conf"
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
PIDS+=($!)
NGINX_URL="http://127.0.0.1:$NGINX_PORT/bench"

HB_PORT=$(free_port)
"$PEER" 127.0.0.1 "$HB_PORT" "$BODY" >"$WORK/hummingbird.log" 2>&1 &
PIDS+=($!)
HB_URL="http://127.0.0.1:$HB_PORT/bench"

for url in "$LIVERY_URL" "$NGINX_URL" "$HB_URL"; do
    wait_for_http "$url"
    # Same bytes from everyone.
    curl -fs "$url" | cmp -s - "$BODY" || { echo "$url does not serve bench/http/body.json" >&2; exit 1; }
done

echo "== body: $(wc -c <"$BODY") bytes; wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2
echo "== response heads:" >&2
for url in "$LIVERY_URL" "$NGINX_URL" "$HB_URL"; do
    echo "-- $url" >&2
    curl -s -o /dev/null -D - "$url" | tr -d '\r' | sed 's/^/   /' >&2
done

# Runs wrk once; prints "req_per_sec p50_ms p99_ms".
measure() { wrk_measure "$THREADS" "$CONNECTIONS" "$DURATION" "$1" | cut -d' ' -f1-3; }

declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
    for name in livery nginx hummingbird; do
        case $name in
            livery) url=$LIVERY_URL ;;
            nginx) url=$NGINX_URL ;;
            hummingbird) url=$HB_URL ;;
        esac
        result=$(measure "$url")
        echo "   round $round $name: $result" >&2
        RESULTS[$name]+="$result"$'\n'
    done
done

# Median round (by req/s) per server.
median() { median_row "${RESULTS[$1]}"; }
read -r L_RPS L_P50 L_P99 <<<"$(median livery)"
read -r N_RPS N_P50 N_P99 <<<"$(median nginx)"
read -r H_RPS H_P50 H_P99 <<<"$(median hummingbird)"

echo
printf '%-24s %10s %9s %9s\n' "server" "req/s" "p50 ms" "p99 ms"
printf '%-24s %10s %9s %9s\n' "livery" "$L_RPS" "$L_P50" "$L_P99"
printf '%-24s %10s %9s %9s\n' "nginx (static, 2 workers)" "$N_RPS" "$N_P50" "$N_P99"
printf '%-24s %10s %9s %9s\n' "hummingbird 2" "$H_RPS" "$H_P50" "$H_P99"
python3 -c "print(f'livery/nginx       {$L_RPS / $N_RPS:.2f}x   (target >= 1.0x)'); print(f'livery/hummingbird {$L_RPS / $H_RPS:.2f}x   (target >= 1.3x)')"
echo "load average after the runs$(uptime | sed 's/.*load average//')"
echo "livery p99          ${L_P99} ms (target < 5 ms); every round: $(printf '%s' "${RESULTS[livery]}" | awk '{ printf "%s%s", sep, $3; sep = ", " }') ms"

# Idle connections on a fresh Livery, so the number reflects held connections rather than wrk's leftovers.
kill "$LIVERY_PID"
wait "$LIVERY_PID" 2>/dev/null || true
start_livery
wait_for_http "http://127.0.0.1:$LIVERY_PORT/bench"
echo
echo "== holding $IDLE idle keep-alive connections (one request each) on a fresh livery" >&2
IDLE_RESULT=$(python3 "$ROOT/bench/http/idle_connections.py" "$LIVERY_PORT" "$IDLE" "$LIVERY_PID" /bench)
echo "$IDLE_RESULT"
eval "$(echo "$IDLE_RESULT" | tr ' ' '\n' | grep -E '^(rss_held_kb|rss_before_kb|idle_connections)=')"
python3 -c "print(f'livery RSS with {$idle_connections} idle connections: {$rss_held_kb / 1024:.1f} MiB (fresh process: {$rss_before_kb / 1024:.1f} MiB; target < 40 MB)')"
