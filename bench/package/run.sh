#!/usr/bin/env bash
# Package download benchmark (not a test), issue 13 point 9: a ~30 KB package from Livery's real download route
# (`/api/v1/packages/<sign>.zip`) against nginx serving the same zip with sendfile and `open_file_cache`, both on
# 127.0.0.1 and measured with wrk in one run (rounds interleaved); then Livery's RSS with 10,000 idle keep-alive
# connections, as `bench/http/run.sh` measures it (a fresh process, one request on each connection).
# Like with like: Livery at its default log level (a request line each, to a file) against nginx with
# `access_log … combined buffer=64k`, and Livery at `warning` against nginx with `access_log off`; each row also has
# the servers' CPU time (user + system) per request.
#
#   bench/package/run.sh            (builds the release binary first; SKIP_BUILD=1 to reuse it)
#
# Knobs: DURATION (10s), CONNECTIONS (16), THREADS (2), ROUNDS (3, interleaved; the median round by req/s is
# reported), PACKAGE_KB and SKIN_SEED (25 and 7: a generated skin whose package is about 30 KB; make-skin.py
# draws a large banner first for most seeds), IDLE (10000; 0 skips the idle part).
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
PACKAGE_KB=${PACKAGE_KB:-25}
SKIN_SEED=${SKIN_SEED:-7}
IDLE=${IDLE:-10000}

bench_require wrk nginx python3 curl
bench_workdir livery-package-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_build

echo "== generating a ${PACKAGE_KB} KB skin (seed $SKIN_SEED)" >&2
bench_demo_skin "$WORK/skins/bench" "$(python3 -c "print($PACKAGE_KB / 1000)")" "$SKIN_SEED"
bench_start_livery "$WORK" --event-loop-affinity "$AFFINITY"
LIVERY_BASE="http://127.0.0.1:$LIVERY_PORT"
LIVERY_CPU=$LIVERY_PID
mkdir -p "$WORK/logged"
ln -s "$WORK/skins" "$WORK/logged/skins"
BENCH_LOG_LEVEL=info bench_start_livery "$WORK/logged" --event-loop-affinity "$AFFINITY"
LOGGED_BASE="http://127.0.0.1:$LIVERY_PORT"
LOGGED_CPU=$LIVERY_PID

mkdir -p "$WORK/www"
POLL_QUERY="?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
curl -fs "$LIVERY_BASE/api/v1/skin$POLL_QUERY" >"$WORK/www/answer.json"
PACKAGE_PATH=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["packageUrl"])' "$WORK/www/answer.json")
[ -n "$PACKAGE_PATH" ] || { echo "no skin in the answer: $(cat "$WORK/www/answer.json")" >&2; exit 1; }
curl -fs "$LIVERY_BASE$PACKAGE_PATH" >"$WORK/www/package.zip"
chmod 644 "$WORK/www/"*

# The same nginx peer as bench/client (2 workers, sendfile, open_file_cache).
bench_start_nginx "$WORK"
NGINX_CPU=$(pids_of "$NGINX_PID")
for url in "$NGINX_BASE/package.zip" "$NGINX_LOG_BASE/package.zip" "$LOGGED_BASE$PACKAGE_PATH"; do
    curl -fs "$url" | cmp -s - "$WORK/www/package.zip" || { echo "$url serves another zip" >&2; exit 1; }
done
# The logs measured runs write are emptied after each run.
BENCH_TRUNCATE="$WORK/logged/livery.log $WORK/access.log"

echo "== package: $(wc -c <"$WORK/www/package.zip") bytes; wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2

NAMES="livery nginx livery-log nginx-log"
declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
    for name in $NAMES; do
        case $name in
            livery) result=$(measure_cpu "$LIVERY_CPU" "$CONNECTIONS" "$LIVERY_BASE$PACKAGE_PATH") ;;
            nginx) result=$(measure_cpu "$NGINX_CPU" "$CONNECTIONS" "$NGINX_BASE/package.zip") ;;
            livery-log) result=$(measure_cpu "$LOGGED_CPU" "$CONNECTIONS" "$LOGGED_BASE$PACKAGE_PATH") ;;
            nginx-log) result=$(measure_cpu "$NGINX_CPU" "$CONNECTIONS" "$NGINX_LOG_BASE/package.zip") ;;
        esac
        echo "   round $round $name: $result" >&2
        RESULTS[$name]+="$result"$'\n'
    done
done
read -r L_RPS L_P99 L_MB L_CPU L_STEAL <<<"$(median_row "${RESULTS[livery]}")"
read -r N_RPS N_P99 N_MB N_CPU N_STEAL <<<"$(median_row "${RESULTS[nginx]}")"
read -r LL_RPS LL_P99 LL_MB LL_CPU LL_STEAL <<<"$(median_row "${RESULTS[livery-log]}")"
read -r NL_RPS NL_P99 NL_MB NL_CPU NL_STEAL <<<"$(median_row "${RESULTS[nginx-log]}")"

echo
printf '%-52s %10s %9s %10s %12s %8s\n' "server (median round by req/s)" "req/s" "p99 ms" "MB/s" "CPU us/req" "steal %"
printf '%-52s %10s %9s %10s %12s %8s\n' "livery package, --log-level warning" "$L_RPS" "$L_P99" "$L_MB" "$L_CPU" "$L_STEAL"
printf '%-52s %10s %9s %10s %12s %8s\n' "nginx package (sendfile), access_log off" "$N_RPS" "$N_P99" "$N_MB" "$N_CPU" "$N_STEAL"
printf '%-52s %10s %9s %10s %12s %8s\n' "livery package, default level (info)" "$LL_RPS" "$LL_P99" "$LL_MB" "$LL_CPU" "$LL_STEAL"
printf '%-52s %10s %9s %10s %12s %8s\n' "nginx package (sendfile), access_log buffer=64k" "$NL_RPS" "$NL_P99" "$NL_MB" "$NL_CPU" "$NL_STEAL"
python3 -c "
print(f'package livery/nginx req/s, no logs       {$L_RPS / $N_RPS:.2f}x   CPU/req {$L_CPU / $N_CPU:.2f}x   (target >= 1.0x)')
print(f'package livery/nginx req/s, both logging  {$LL_RPS / $NL_RPS:.2f}x   CPU/req {$LL_CPU / $NL_CPU:.2f}x')
"
echo "load average after the runs:$(uptime | sed 's/.*load average//')"

[ "$IDLE" -gt 0 ] || exit 0
# Idle connections on a fresh Livery serving bench/http's body, exactly as bench/http/run.sh measures them.
kill "$LIVERY_CPU" "$LOGGED_CPU"
wait "$LIVERY_CPU" "$LOGGED_CPU" 2>/dev/null || true
rm -rf "$WORK/skins" "$WORK/data"
bench_start_livery "$WORK" --bench-body "$ROOT/bench/http/body.json"
echo
echo "== holding $IDLE idle keep-alive connections (one request each) on a fresh livery" >&2
IDLE_RESULT=$(python3 "$ROOT/bench/http/idle_connections.py" "$LIVERY_PORT" "$IDLE" "$LIVERY_PID" /bench)
echo "$IDLE_RESULT"
eval "$(echo "$IDLE_RESULT" | tr ' ' '\n' | grep -E '^(rss_held_kb|rss_before_kb|idle_connections)=')"
python3 -c "print(f'livery RSS with {$idle_connections} idle connections: {$rss_held_kb / 1024:.1f} MiB (fresh process: {$rss_before_kb / 1024:.1f} MiB; target < 40 MB)')"
