#!/usr/bin/env bash
# TLS benchmark (not a test): Livery serving HTTPS itself (--tls-cert/--tls-key) against nginx (2 workers) with the
# same certificate (EC P-256, made here by the openssl command line), all on 127.0.0.1, measured with wrk in one run:
#   - poll req/s over keep-alive TLS (Livery's real poll endpoint; nginx: the same answer as a static file);
#   - new-handshake rate (the same requests with `Connection: close`: one full handshake per request, wrk offers
#     no session to resume), and the server CPU time per handshake (user + system of Livery's process, of nginx's
#     workers), which the machine's other load does not skew;
#   - package MB/s over TLS (the same zip; Livery reads and encrypts it in chunks, nginx too: no sendfile under TLS).
#
#   bench/tls/run.sh            (builds the release binary first; SKIP_BUILD=1 to reuse it)
#
# Knobs: DURATION (10s), POLL_CONNECTIONS (64), HANDSHAKE_CONNECTIONS (16), PACKAGE_CONNECTIONS (16), THREADS (2),
# ROUNDS (3, interleaved; the median round is reported), PACKAGE_MB (3).
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
POLL_CONNECTIONS=${POLL_CONNECTIONS:-64}
HANDSHAKE_CONNECTIONS=${HANDSHAKE_CONNECTIONS:-16}
PACKAGE_CONNECTIONS=${PACKAGE_CONNECTIONS:-16}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
PACKAGE_MB=${PACKAGE_MB:-3}

bench_require wrk nginx python3 curl openssl
bench_workdir livery-tls-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_build

# One certificate for both servers: a private CA and a server certificate for 127.0.0.1.
mkdir -p "$WORK/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/tls/ca.key" \
    -out "$WORK/tls/ca.crt" -days 2 -subj "/CN=bench CA" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/tls/server.key" \
    -out "$WORK/tls/server.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$WORK/tls/ext.cnf"
openssl x509 -req -in "$WORK/tls/server.csr" -CA "$WORK/tls/ca.crt" -CAkey "$WORK/tls/ca.key" -CAcreateserial \
    -out "$WORK/tls/server.crt" -days 1 -extfile "$WORK/tls/ext.cnf" 2>/dev/null
chmod 644 "$WORK/tls/"*
CURL=(curl -fs --cacert "$WORK/tls/ca.crt")

echo "== generating a ${PACKAGE_MB} MB skin" >&2
bench_demo_skin "$WORK/skins/bench" "$PACKAGE_MB"

LIVERY_PORT=$(free_port)
"$LIVERY" serve --host 127.0.0.1 --port "$LIVERY_PORT" --log-level warning --skins-dir "$WORK/skins" \
    --data-dir "$WORK/data" --tls-cert "$WORK/tls/server.crt" --tls-key "$WORK/tls/server.key" \
    >"$WORK/livery.log" 2>&1 &
LIVERY_PID=$!
PIDS+=($!)
LIVERY_BASE="https://127.0.0.1:$LIVERY_PORT"
for _ in $(seq 1 600); do
    "${CURL[@]}" -o /dev/null "$LIVERY_BASE/readyz" && break
    sleep 0.05
done
"${CURL[@]}" -o /dev/null "$LIVERY_BASE/readyz" || { echo "livery not ready" >&2; cat "$WORK/livery.log" >&2; exit 1; }

mkdir -p "$WORK/www"
POLL_QUERY="?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
"${CURL[@]}" "$LIVERY_BASE/api/v1/skin$POLL_QUERY" >"$WORK/www/answer.json"
PACKAGE_PATH=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["packageUrl"])' "$WORK/www/answer.json")
[ -n "$PACKAGE_PATH" ] || { echo "no skin in the answer: $(cat "$WORK/www/answer.json")" >&2; exit 1; }
"${CURL[@]}" "$LIVERY_BASE$PACKAGE_PATH" >"$WORK/www/package.zip"
chmod 644 "$WORK/www/"*

NGINX_PORT=$(free_port)
sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$NGINX_PORT|g" "$ROOT/bench/tls/nginx.conf" >"$WORK/nginx.conf"
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
PIDS+=($!)
NGINX_BASE="https://127.0.0.1:$NGINX_PORT"
for _ in $(seq 1 400); do "${CURL[@]}" -o /dev/null "$NGINX_BASE/bench" && break; sleep 0.05; done
"${CURL[@]}" "$NGINX_BASE/bench" | cmp -s - "$WORK/www/answer.json" || { echo "nginx answer differs" >&2; exit 1; }
"${CURL[@]}" "$NGINX_BASE/package.zip" | cmp -s - "$WORK/www/package.zip" || { echo "nginx zip differs" >&2; exit 1; }

echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//') (shared with other builds)" >&2
echo "== $ROUNDS interleaved rounds of $DURATION each; wrk -t$THREADS; median round reported" >&2

declare -A RESULTS
TICKS=$(getconf CLK_TCK)
SECONDS_PER_ROUND=${DURATION%s}
for round in $(seq 1 "$ROUNDS"); do
    for server in livery nginx; do
        if [ "$server" = livery ]; then poll="$LIVERY_BASE/api/v1/skin$POLL_QUERY"; package="$LIVERY_BASE$PACKAGE_PATH"
            pids=("$LIVERY_PID")
        else poll="$NGINX_BASE/bench$POLL_QUERY"; package="$NGINX_BASE/package.zip"
            mapfile -t pids < <(pgrep -P "$NGINX_PID"); fi
        RESULTS[$server-poll]+="$(measure "$POLL_CONNECTIONS" "$poll")"$'\n'
        before=$(cpu_ticks "${pids[@]}")
        row=$(measure "$HANDSHAKE_CONNECTIONS" "$poll" -H "Connection: close")
        after=$(cpu_ticks "${pids[@]}")
        RESULTS[$server-handshake]+="$row"$'\n'
        # Microseconds of server CPU per handshake: CPU seconds over (req/s x seconds).
        RESULTS[$server-cpu]+="$(awk -v t="$((after - before))" -v hz="$TICKS" -v rps="${row%% *}" -v s="$SECONDS_PER_ROUND" \
            'BEGIN { printf "%.0f", t / hz / (rps * s) * 1e6 }')"$'\n'
        RESULTS[$server-package]+="$(measure "$PACKAGE_CONNECTIONS" "$package")"$'\n'
        echo "   round $round $server: poll $(printf '%s' "${RESULTS[$server-poll]}" | tail -1)," \
            "handshakes $(printf '%s' "${RESULTS[$server-handshake]}" | tail -1)" \
            "($(printf '%s' "${RESULTS[$server-cpu]}" | tail -1) us CPU each)," \
            "package $(printf '%s' "${RESULTS[$server-package]}" | tail -1)" >&2
    done
done

median() { median_row "${RESULTS[$1]}"; }
read -r LP_RPS LP_P99 _ <<<"$(median livery-poll)"
read -r NP_RPS NP_P99 _ <<<"$(median nginx-poll)"
read -r LH_RPS LH_P99 _ <<<"$(median livery-handshake)"
read -r NH_RPS NH_P99 _ <<<"$(median nginx-handshake)"
LK_MB=$(printf '%s' "${RESULTS[livery-package]}" | awk '{ print $3 }' | sort -n | awk '{ r[NR] = $0 } END { print r[int((NR + 1) / 2)] }')
NK_MB=$(printf '%s' "${RESULTS[nginx-package]}" | awk '{ print $3 }' | sort -n | awk '{ r[NR] = $0 } END { print r[int((NR + 1) / 2)] }')

echo
printf '%-34s %12s %12s %8s\n' "measure (TLS, median round)" "livery" "nginx" "ratio"
LC_US=$(median_row "${RESULTS[livery-cpu]}")
NC_US=$(median_row "${RESULTS[nginx-cpu]}")
python3 - "$LP_RPS" "$NP_RPS" "$LH_RPS" "$NH_RPS" "$LK_MB" "$NK_MB" "$LC_US" "$NC_US" <<'PY'
import sys
lp, np_, lh, nh, lk, nk, lc, nc = map(float, sys.argv[1:])
for name, livery, nginx in [("poll req/s (keep-alive)", lp, np_), ("new handshakes/s", lh, nh), ("package MB/s", lk, nk)]:
    print(f"{name:34s} {livery:12.1f} {nginx:12.1f} {livery / nginx:7.2f}x  (target >= 0.8x)")
print(f"{'server CPU us per handshake':34s} {lc:12.0f} {nc:12.0f} {nc / lc:7.2f}x  (nginx's cost / Livery's: the rate without the noise)")
PY
echo "poll p99: livery ${LP_P99} ms, nginx ${NP_P99} ms; load average after the runs$(uptime | sed 's/.*load average//')"
