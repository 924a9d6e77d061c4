#!/usr/bin/env bash
# Client API benchmark (not a test): Livery's real poll endpoint (parsing, resolution, precomputed answer) and
# package download against nginx (2 workers: the same answer as a static file, the same zip with sendfile) and a
# Hummingbird 2 app (the same answer as a constant from memory), all on 127.0.0.1, measured with wrk in one run.
# Like with like: Livery at its default log level (a request line each, to a file) against nginx with
# `access_log … combined buffer=64k`, and Livery at `warning` against nginx with `access_log off`. Each row also
# has the servers' CPU time (user + system) per request, steadier than req/s on a shared machine.
#
#   bench/client/run.sh            (builds release binaries first; SKIP_BUILD=1 to reuse them)
#
# Knobs: DURATION (10s), POLL_CONNECTIONS (64), PACKAGE_CONNECTIONS (16), THREADS (2), ROUNDS (3, interleaved;
# the median round by req/s is reported), PACKAGE_MB (3: size of the generated skin behind the package),
# HUMMINGBIRD (1; 0 leaves out the Hummingbird peer, a build of its own), LIVERY_BIN (another livery binary, with
# SKIP_BUILD=1).
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
POLL_CONNECTIONS=${POLL_CONNECTIONS:-64}
PACKAGE_CONNECTIONS=${PACKAGE_CONNECTIONS:-16}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
PACKAGE_MB=${PACKAGE_MB:-3}
HUMMINGBIRD=${HUMMINGBIRD:-1}

bench_require wrk nginx python3 curl
bench_workdir livery-client-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
if [ "$HUMMINGBIRD" = 0 ]; then bench_build; else bench_build peer; fi

# A valid skin of PACKAGE_MB megabytes (real PNGs and Lottie JSON), released for app "demo" from an hour ago.
echo "== generating a ${PACKAGE_MB} MB skin" >&2
bench_demo_skin "$WORK/skins/bench" "$PACKAGE_MB"

# Two Livery processes on the same skins: one at `warning`, one at its default level (`info`: a request line each).
bench_start_livery "$WORK" --event-loop-affinity "$AFFINITY"
LIVERY_BASE="http://127.0.0.1:$LIVERY_PORT"
LIVERY_CPU=$LIVERY_PID
mkdir -p "$WORK/logged"
ln -s "$WORK/skins" "$WORK/logged/skins"
BENCH_LOG_LEVEL=info bench_start_livery "$WORK/logged" --event-loop-affinity "$AFFINITY"
LOGGED_BASE="http://127.0.0.1:$LIVERY_PORT"
LOGGED_CPU=$LIVERY_PID

# The answer and package every server will serve.
mkdir -p "$WORK/www"
POLL_QUERY="?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
curl -fs "$LIVERY_BASE/api/v1/skin$POLL_QUERY" >"$WORK/www/answer.json"
PACKAGE_PATH=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["packageUrl"])' "$WORK/www/answer.json")
[ -n "$PACKAGE_PATH" ] || { echo "no skin in the answer: $(cat "$WORK/www/answer.json")" >&2; exit 1; }
curl -fs "$LIVERY_BASE$PACKAGE_PATH" >"$WORK/www/package.zip"
chmod 644 "$WORK/www/"*

bench_start_nginx "$WORK"

NAMES="livery-poll nginx-poll livery-log-poll nginx-log-poll hummingbird-poll livery-package nginx-package livery-log-package nginx-log-package"
if [ "$HUMMINGBIRD" != 0 ]; then
    HB_PORT=$(free_port)
    "$PEER" 127.0.0.1 "$HB_PORT" "$WORK/www/answer.json" >"$WORK/hummingbird.log" 2>&1 &
    HB_PID=$!
    PIDS+=($HB_PID)
    HB_BASE="http://127.0.0.1:$HB_PORT"
    wait_for_http "$HB_BASE/bench"
    curl -fs "$HB_BASE/bench$POLL_QUERY" | cmp -s - "$WORK/www/answer.json" || { echo "hummingbird serves another answer" >&2; exit 1; }
else
    NAMES=${NAMES/hummingbird-poll /}
fi

wait_for_http "$NGINX_BASE/bench"
NGINX_CPU=$(pids_of "$NGINX_PID")
for url in "$NGINX_BASE/bench$POLL_QUERY" "$NGINX_LOG_BASE/bench$POLL_QUERY" "$LIVERY_BASE/api/v1/skin$POLL_QUERY" \
    "$LOGGED_BASE/api/v1/skin$POLL_QUERY"; do
    curl -fs "$url" | cmp -s - "$WORK/www/answer.json" || { echo "$url does not serve the same answer" >&2; exit 1; }
done
for url in "$NGINX_BASE/package.zip" "$NGINX_LOG_BASE/package.zip" "$LOGGED_BASE$PACKAGE_PATH"; do
    curl -fs "$url" | cmp -s - "$WORK/www/package.zip" || { echo "$url serves another zip" >&2; exit 1; }
done
# The logs measured runs write are emptied after each run.
BENCH_TRUNCATE="$WORK/logged/livery.log $WORK/access.log"

echo "== answer: $(wc -c <"$WORK/www/answer.json") bytes; package: $(wc -c <"$WORK/www/package.zip") bytes" >&2
echo "== poll: wrk -t$THREADS -c$POLL_CONNECTIONS -d$DURATION --latency -s bench/client/vary.lua (every request a different device and version)" >&2
echo "== package: wrk -t$THREADS -c$PACKAGE_CONNECTIONS -d$DURATION --latency; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2

declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
    for name in $NAMES; do
        case $name in
            livery-poll) result=$(BENCH_PATH=/api/v1/skin measure_cpu "$LIVERY_CPU" "$POLL_CONNECTIONS" "$LIVERY_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            nginx-poll) result=$(BENCH_PATH=/bench measure_cpu "$NGINX_CPU" "$POLL_CONNECTIONS" "$NGINX_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            livery-log-poll) result=$(BENCH_PATH=/api/v1/skin measure_cpu "$LOGGED_CPU" "$POLL_CONNECTIONS" "$LOGGED_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            nginx-log-poll) result=$(BENCH_PATH=/bench measure_cpu "$NGINX_CPU" "$POLL_CONNECTIONS" "$NGINX_LOG_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            hummingbird-poll) result=$(BENCH_PATH=/bench measure_cpu "$HB_PID" "$POLL_CONNECTIONS" "$HB_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            livery-package) result=$(measure_cpu "$LIVERY_CPU" "$PACKAGE_CONNECTIONS" "$LIVERY_BASE$PACKAGE_PATH") ;;
            nginx-package) result=$(measure_cpu "$NGINX_CPU" "$PACKAGE_CONNECTIONS" "$NGINX_BASE/package.zip") ;;
            livery-log-package) result=$(measure_cpu "$LOGGED_CPU" "$PACKAGE_CONNECTIONS" "$LOGGED_BASE$PACKAGE_PATH") ;;
            nginx-log-package) result=$(measure_cpu "$NGINX_CPU" "$PACKAGE_CONNECTIONS" "$NGINX_LOG_BASE/package.zip") ;;
        esac
        echo "   round $round $name: $result" >&2
        RESULTS[$name]+="$result"$'\n'
    done
done

echo
printf '%-48s %10s %9s %10s %12s %8s\n' "server (median round by req/s)" "req/s" "p99 ms" "MB/s" "CPU us/req" "steal %"
declare -A ROW
for name in $NAMES; do
    ROW[$name]=$(median_row "${RESULTS[$name]}")
    case $name in
        livery-poll) label="livery /api/v1/skin, --log-level warning" ;;
        nginx-poll) label="nginx static answer, access_log off" ;;
        livery-log-poll) label="livery /api/v1/skin, default level (info)" ;;
        nginx-log-poll) label="nginx static answer, access_log buffer=64k" ;;
        hummingbird-poll) label="hummingbird 2 constant answer" ;;
        livery-package) label="livery package, --log-level warning" ;;
        nginx-package) label="nginx package (sendfile), access_log off" ;;
        livery-log-package) label="livery package, default level (info)" ;;
        nginx-log-package) label="nginx package (sendfile), access_log buffer=64k" ;;
    esac
    read -r rps p99 mb cpu steal <<<"${ROW[$name]}"
    printf '%-48s %10s %9s %10s %12s %8s\n' "$label" "$rps" "$p99" "$mb" "$cpu" "$steal"
done
ratio() {  # livery-name nginx-name column(1 req/s, 3 MB/s, 4 CPU)
    python3 -c "import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); print(f'{float(a[$3 - 1]) / float(b[$3 - 1]):.2f}x')" "${ROW[$1]}" "${ROW[$2]}"
}
read -r _ LP_P99 _ <<<"${ROW[livery-poll]}"
read -r _ LLP_P99 _ <<<"${ROW[livery-log-poll]}"
echo "poll    livery/nginx req/s, no logs        $(ratio livery-poll nginx-poll 1)   CPU/req $(ratio livery-poll nginx-poll 4)   (target >= 1.0x)"
echo "poll    livery/nginx req/s, both logging   $(ratio livery-log-poll nginx-log-poll 1)   CPU/req $(ratio livery-log-poll nginx-log-poll 4)   (target >= 0.9x)"
[ "$HUMMINGBIRD" = 0 ] || echo "poll    livery/hummingbird req/s           $(ratio livery-poll hummingbird-poll 1)   (target >= 1.2x)"
echo "poll    livery p99                         $LP_P99 ms, logging $LLP_P99 ms (target < 5 ms)"
echo "package livery/nginx MB/s, no logs         $(ratio livery-package nginx-package 3)   CPU/req $(ratio livery-package nginx-package 4)   (target >= 1.0x)"
echo "package livery/nginx MB/s, both logging    $(ratio livery-log-package nginx-log-package 3)   CPU/req $(ratio livery-log-package nginx-log-package 4)"
echo "load average after the runs:$(uptime | sed 's/.*load average//')"
