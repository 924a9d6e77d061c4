#!/usr/bin/env bash
# Client API benchmark (not a test): Livery's real poll endpoint (parsing, resolution, precomputed answer) and
# package download against nginx (2 workers: the same answer as a static file, the same zip with sendfile) and a
# Hummingbird 2 app (the same answer as a constant from memory), all on 127.0.0.1, measured with wrk in one run.
#
#   bench/client/run.sh            (builds release binaries first; SKIP_BUILD=1 to reuse them)
#
# Knobs: DURATION (10s), POLL_CONNECTIONS (64), PACKAGE_CONNECTIONS (16), THREADS (2), ROUNDS (3, interleaved;
# the median round by req/s is reported), PACKAGE_MB (3: size of the generated skin behind the package).
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
POLL_CONNECTIONS=${POLL_CONNECTIONS:-64}
PACKAGE_CONNECTIONS=${PACKAGE_CONNECTIONS:-16}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
PACKAGE_MB=${PACKAGE_MB:-3}

bench_require wrk nginx python3 curl
bench_workdir livery-client-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_build peer

# A valid skin of PACKAGE_MB megabytes (real PNGs and Lottie JSON), released for app "demo" from an hour ago.
echo "== generating a ${PACKAGE_MB} MB skin" >&2
bench_demo_skin "$WORK/skins/bench" "$PACKAGE_MB"

LIVERY_PORT=$(free_port)
"$LIVERY" serve --host 127.0.0.1 --port "$LIVERY_PORT" --log-level warning --skins-dir "$WORK/skins" \
    --data-dir "$WORK/data" >"$WORK/livery.log" 2>&1 &
PIDS+=($!)
LIVERY_BASE="http://127.0.0.1:$LIVERY_PORT"
for _ in $(seq 1 600); do
    curl -fs -o /dev/null "$LIVERY_BASE/readyz" && break
    sleep 0.05
done
curl -fs -o /dev/null "$LIVERY_BASE/readyz" || { echo "livery not ready" >&2; cat "$WORK/livery.log" >&2; exit 1; }

# The answer and package every server will serve.
mkdir -p "$WORK/www"
POLL_QUERY="?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
curl -fs "$LIVERY_BASE/api/v1/skin$POLL_QUERY" >"$WORK/www/answer.json"
PACKAGE_PATH=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["packageUrl"])' "$WORK/www/answer.json")
[ -n "$PACKAGE_PATH" ] || { echo "no skin in the answer: $(cat "$WORK/www/answer.json")" >&2; exit 1; }
curl -fs "$LIVERY_BASE$PACKAGE_PATH" >"$WORK/www/package.zip"
chmod 644 "$WORK/www/"*

NGINX_PORT=$(free_port)
sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$NGINX_PORT|g" "$ROOT/bench/client/nginx.conf" >"$WORK/nginx.conf"
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
PIDS+=($!)
NGINX_BASE="http://127.0.0.1:$NGINX_PORT"

HB_PORT=$(free_port)
"$PEER" 127.0.0.1 "$HB_PORT" "$WORK/www/answer.json" >"$WORK/hummingbird.log" 2>&1 &
PIDS+=($!)
HB_BASE="http://127.0.0.1:$HB_PORT"

wait_for_http "$NGINX_BASE/bench"
wait_for_http "$HB_BASE/bench"
for url in "$NGINX_BASE/bench$POLL_QUERY" "$HB_BASE/bench$POLL_QUERY" "$LIVERY_BASE/api/v1/skin$POLL_QUERY"; do
    curl -fs "$url" | cmp -s - "$WORK/www/answer.json" || { echo "$url does not serve the same answer" >&2; exit 1; }
done
curl -fs "$NGINX_BASE/package.zip" | cmp -s - "$WORK/www/package.zip" || { echo "nginx zip differs" >&2; exit 1; }

echo "== answer: $(wc -c <"$WORK/www/answer.json") bytes; package: $(wc -c <"$WORK/www/package.zip") bytes" >&2
echo "== poll: wrk -t$THREADS -c$POLL_CONNECTIONS -d$DURATION --latency -s bench/client/vary.lua (every request a different device and version)" >&2
echo "== package: wrk -t$THREADS -c$PACKAGE_CONNECTIONS -d$DURATION --latency; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2

declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
    for name in livery-poll nginx-poll hummingbird-poll livery-package nginx-package; do
        case $name in
            livery-poll) result=$(BENCH_PATH=/api/v1/skin measure "$POLL_CONNECTIONS" "$LIVERY_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            nginx-poll) result=$(BENCH_PATH=/bench measure "$POLL_CONNECTIONS" "$NGINX_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            hummingbird-poll) result=$(BENCH_PATH=/bench measure "$POLL_CONNECTIONS" "$HB_BASE" -s "$ROOT/bench/client/vary.lua") ;;
            livery-package) result=$(measure "$PACKAGE_CONNECTIONS" "$LIVERY_BASE$PACKAGE_PATH") ;;
            nginx-package) result=$(measure "$PACKAGE_CONNECTIONS" "$NGINX_BASE/package.zip") ;;
        esac
        echo "   round $round $name: $result" >&2
        RESULTS[$name]+="$result"$'\n'
    done
done

median() { median_row "${RESULTS[$1]}"; }
read -r LP_RPS LP_P99 LP_MB <<<"$(median livery-poll)"
read -r NP_RPS NP_P99 NP_MB <<<"$(median nginx-poll)"
read -r HP_RPS HP_P99 HP_MB <<<"$(median hummingbird-poll)"
read -r LZ_RPS LZ_P99 LZ_MB <<<"$(median livery-package)"
read -r NZ_RPS NZ_P99 NZ_MB <<<"$(median nginx-package)"

echo
printf '%-40s %10s %9s %10s\n' "server" "req/s" "p99 ms" "MB/s"
printf '%-40s %10s %9s %10s\n' "livery /api/v1/skin (resolving)" "$LP_RPS" "$LP_P99" "$LP_MB"
printf '%-40s %10s %9s %10s\n' "nginx static answer (2 workers)" "$NP_RPS" "$NP_P99" "$NP_MB"
printf '%-40s %10s %9s %10s\n' "hummingbird 2 constant answer" "$HP_RPS" "$HP_P99" "$HP_MB"
printf '%-40s %10s %9s %10s\n' "livery package download" "$LZ_RPS" "$LZ_P99" "$LZ_MB"
printf '%-40s %10s %9s %10s\n' "nginx package (sendfile)" "$NZ_RPS" "$NZ_P99" "$NZ_MB"
python3 -c "
print(f'poll    livery/nginx       {$LP_RPS / $NP_RPS:.2f}x   (target >= 0.8x)')
print(f'poll    livery/hummingbird {$LP_RPS / $HP_RPS:.2f}x   (target >= 1.2x)')
print(f'poll    livery p99         {$LP_P99} ms (target < 5 ms)')
print(f'package livery/nginx MB/s  {$LZ_MB / $NZ_MB:.2f}x   (target >= 1.0x)')
"
echo "load average after the runs:$(uptime | sed 's/.*load average//')"
