#!/usr/bin/env bash
# PostgreSQL store benchmark (not a test), all on 127.0.0.1, in one run:
#   1. poll req/s of a replica on PostgreSQL against one on the file store, same skin, interleaved rounds
#      (target: PostgreSQL >= 0.95x file);
#   2. admin change latency p50/p99 (global kill switch on/off) on each store;
#   3. propagation delay across three replicas on one PostgreSQL: from the writer's answer until both other
#      replicas serve the change, p50/p99/max (target: p99 < 1 s);
#   4. the kill switch during a large release build (BUILD_MB, default 30, of incompressible PNGs): how long the
#      release takes, how long a global kill switch through another replica and an app's through the building one
#      take to answer, and until all three replicas serve "skins off" (target: all well before the release ends).
# PostgreSQL is Debian's (newest under /usr/lib/postgresql), a fresh cluster in a scratch folder on a Unix socket,
# default durability (fsync on), run as user postgres when started as root.
#
#   bench/pg/run.sh            (builds the release binary first; SKIP_BUILD=1 to reuse it)
#
# Knobs: DURATION (10s), POLL_CONNECTIONS (64), THREADS (2), ROUNDS (3, interleaved; median by req/s),
# CHANGES (200, for the latency), PROPAGATIONS (60), PACKAGE_MB (1: size of the generated skin); LIVERY_BINARY
# another livery to run (with SKIP_BUILD=1 and a debug build, a quick check of the script itself, not a figure).
source "$(dirname "$0")/../lib.sh"
LIVERY=${LIVERY_BINARY:-$LIVERY}

DURATION=${DURATION:-10s}
POLL_CONNECTIONS=${POLL_CONNECTIONS:-64}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
CHANGES=${CHANGES:-200}
PROPAGATIONS=${PROPAGATIONS:-60}
PACKAGE_MB=${PACKAGE_MB:-1}
BUILD_MB=${BUILD_MB:-30}

bench_require wrk python3 curl sha256sum
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PG_BIN" ] || { echo "missing PostgreSQL (apt-get install postgresql)" >&2; exit 1; }
bench_workdir livery-pg-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_build

# PostgreSQL: refuses to run as root, so then as user postgres (Debian's package creates it).
PG_DIR="$WORK/postgres"
mkdir -p "$PG_DIR"
AS_PG=()
if [ "$(id -u)" = 0 ]; then
    chown postgres "$PG_DIR"
    AS_PG=(runuser -u postgres --)
fi
"${AS_PG[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust --no-locale -E UTF8 >"$WORK/initdb.log"
"${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR'" start >/dev/null
pg_stop() { "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true; }
trap 'pg_stop; bench_cleanup' EXIT
"${AS_PG[@]}" "$PG_BIN/createdb" -h "$PG_DIR" -U postgres livery
STORE="postgresql://postgres@/livery?host=$PG_DIR"

# One skin, the same for every server; an editor token for the admin API.
echo "== generating a ${PACKAGE_MB} MB skin" >&2
bench_demo_skin "$WORK/skins/bench" "$PACKAGE_MB"
TOKEN=livery_bench_editor_token_0123456789
echo "bench editor $(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)" >"$WORK/tokens"

start() {  # name [flags...]: a replica with its own data folder and the shared skins folder; sets PORT_<name>
    local name=$1
    shift
    mkdir -p "$WORK/$name"
    ln -sfn "$WORK/skins" "$WORK/$name/skins"
    bench_start_livery "$WORK/$name" --tokens-file "$WORK/tokens" "$@"
    printf -v "PORT_$name" '%s' "$LIVERY_PORT"
}
start file
start pg1 --store "$STORE"
start pg2 --store "$STORE"
start pg3 --store "$STORE"
POLL_QUERY="?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
FILE_ANSWER=$(curl -fs "http://127.0.0.1:$PORT_file/api/v1/skin$POLL_QUERY")
for port in "$PORT_pg1" "$PORT_pg2" "$PORT_pg3"; do
    [ "$(curl -fs "http://127.0.0.1:$port/api/v1/skin$POLL_QUERY")" = "$FILE_ANSWER" ] \
        || { echo "replica on $port answers differently from the file store" >&2; exit 1; }
done

echo "== poll: wrk -t$THREADS -c$POLL_CONNECTIONS -d$DURATION --latency -s bench/client/vary.lua; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2
declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
    for name in file pg1; do
        port_var="PORT_$name"
        result=$(BENCH_PATH=/api/v1/skin measure "$POLL_CONNECTIONS" "http://127.0.0.1:${!port_var}" -s "$ROOT/bench/client/vary.lua")
        echo "   round $round $name: $result" >&2
        RESULTS[$name]+="$result"$'\n'
    done
done
read -r FILE_RPS FILE_P99 _ <<<"$(median_row "${RESULTS[file]}")"
read -r PG_RPS PG_P99 _ <<<"$(median_row "${RESULTS[pg1]}")"

echo "== admin changes: $CHANGES kill-switch changes each, one at a time" >&2
read -r FILE_C50 FILE_C99 <<<"$(python3 "$ROOT/bench/pg/changes.py" latency "$PORT_file" "$TOKEN" "$CHANGES")"
read -r PG_C50 PG_C99 <<<"$(python3 "$ROOT/bench/pg/changes.py" latency "$PORT_pg1" "$TOKEN" "$CHANGES")"
echo "== propagation: $PROPAGATIONS changes through one replica, until the two others serve each" >&2
read -r PROP_50 PROP_99 PROP_MAX <<<"$(python3 "$ROOT/bench/pg/changes.py" propagate "$PORT_pg1" "$TOKEN" "$PROPAGATIONS" "$PORT_pg2" "$PORT_pg3")"

echo "== kill switch during a ${BUILD_MB} MB release build on pg1" >&2
python3 "$ROOT/bench/pack/make-skin.py" "$WORK/big" "$BUILD_MB" >/dev/null
python3 - "$WORK/big" "$WORK/big.zip" <<'PY'
import json, os, sys, zipfile
folder, target = sys.argv[1], sys.argv[2]
json.dump({"id": "big", "title": "Big", "app": "demo"}, open(os.path.join(folder, "skin.json"), "w"))
with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            archive.write(path, os.path.relpath(path, folder))
PY
curl -fs -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/zip" \
    --data-binary "@$WORK/big.zip" "http://127.0.0.1:$PORT_pg1/admin/v1/skins"
read -r BUILD_RELEASE BUILD_GLOBAL BUILD_APP BUILD_SERVED BUILD_OFF <<<"$(python3 "$ROOT/bench/pg/changes.py" during-build \
    "$PORT_pg1" "$PORT_pg2" "$TOKEN" big "$PORT_pg1" "$PORT_pg2" "$PORT_pg3")"

echo
printf '%-42s %10s %9s\n' "poll" "req/s" "p99 ms"
printf '%-42s %10s %9s\n' "livery on the file store" "$FILE_RPS" "$FILE_P99"
printf '%-42s %10s %9s\n' "livery on PostgreSQL" "$PG_RPS" "$PG_P99"
printf '%-42s %10s %9s\n' "admin change (kill switch)" "p50 ms" "p99 ms"
printf '%-42s %10s %9s\n' "file store" "$FILE_C50" "$FILE_C99"
printf '%-42s %10s %9s\n' "PostgreSQL" "$PG_C50" "$PG_C99"
printf '%-42s %10s %9s %9s\n' "propagation to 2 other replicas" "p50 ms" "p99 ms" "max ms"
printf '%-42s %10s %9s %9s\n' "PostgreSQL (NOTIFY + 500 ms revision poll)" "$PROP_50" "$PROP_99" "$PROP_MAX"
printf '%-42s %10s\n' "during a ${BUILD_MB} MB release build" "ms"
printf '%-42s %10s\n' "the release (package builds, commit)" "$BUILD_RELEASE"
printf '%-42s %10s\n' "global kill switch via pg2, answered" "$BUILD_GLOBAL"
printf '%-42s %10s\n' "app kill switch via pg1, answered" "$BUILD_APP"
printf '%-42s %10s\n' "skins off served by all three" "$BUILD_SERVED"
printf '%-42s %10s\n' "kill switch off via pg2 after the release" "$BUILD_OFF"
python3 -c "
print(f'poll      PostgreSQL/file      {$PG_RPS / $FILE_RPS:.2f}x   (target >= 0.95x)')
print(f'kill switch served everywhere / release build   {$BUILD_SERVED / $BUILD_RELEASE:.3f}x (target well under 1)')
print(f'propagate p99                  {$PROP_99:.0f} ms (target < 1000 ms)')
"
echo "load average after the runs:$(uptime | sed 's/.*load average//')"
