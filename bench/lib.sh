# Shared setup for the benchmark scripts under bench/ (sourced, not run). Everything runs on 127.0.0.1.
#
#   source "$(dirname "$0")/../lib.sh"     (from bench/<name>/run.sh; sets ROOT and cds there)
#
# Builds measure the binary the Dockerfile ships: `swift build -c release --static-swift-stdlib`. The static
# Swift runtime starts faster (no dynamic loading of Foundation and ICU: `livery --help` 9.6 ms against 15.1 ms)
# and calls into the runtime directly rather than through the PLT.

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
LIVERY=${LIVERY_BIN:-$ROOT/.build/release/livery}  # LIVERY_BIN: another build (with SKIP_BUILD=1)
PEER_DIR="$ROOT/bench/peers/hummingbird/HummingbirdPeer"
PEER="$PEER_DIR/.build/release/HummingbirdPeer"
PIDS=()
BENCH_WORK=""
# AFFINITY: `livery serve --event-loop-affinity` in the scripts that compare with nginx (bench/client, bench/package):
# cpus (default) pins each event loop to a CPU and nginx's workers likewise (`worker_cpu_affinity auto`); off leaves
# both floating. Like with like either way.
AFFINITY=${AFFINITY:-cpus}
case $AFFINITY in
    cpus) NGINX_AFFINITY=auto ;;
    off) NGINX_AFFINITY=off ;;
    *) echo "AFFINITY must be cpus or off" >&2; exit 1 ;;
esac

# Exits with an install hint unless every named tool is on PATH.
bench_require() {  # tool...
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk nginx-light python3 curl hyperfine zip)" >&2; exit 1; }
    done
}

# Makes a scratch folder (world-readable, for nginx workers) in BENCH_WORK; on exit, stops every PID in PIDS
# and removes it.
bench_workdir() {  # prefix
    BENCH_WORK=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 755 "$BENCH_WORK"
    trap bench_cleanup EXIT
}

bench_cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -n "$BENCH_WORK" ] && rm -rf "$BENCH_WORK"
}

# Builds the shipped livery binary (and, with `peer`, the Hummingbird peer) unless SKIP_BUILD is set.
bench_build() {  # [peer]
    [ -n "${SKIP_BUILD:-}" ] && [ "${SKIP_BUILD}" != 0 ] && return 0
    echo "== building release binaries (livery as the Dockerfile does: --static-swift-stdlib)" >&2
    swift build -c release --static-swift-stdlib --product livery >&2
    if [ "${1:-}" = peer ]; then swift build -c release --package-path "$PEER_DIR" >&2; fi
}

# Generates a valid skin of MB megabytes (real PNGs and Lottie JSON) in DIR, released for app "demo" on iOS and
# Android from an hour ago for two days. SEED picks other images (make-skin.py's default when not given).
bench_demo_skin() {  # dir mb [seed]
    python3 "$ROOT/bench/pack/make-skin.py" "$1" "$2" ${3:+"$3"} >/dev/null
    python3 - "$1/skin.json" <<'PY'
import datetime, json, sys
path = sys.argv[1]
manifest = json.load(open(path))
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
manifest["app"] = "demo"
manifest["release"] = {"startsAt": (now - datetime.timedelta(hours=1)).isoformat(),
                       "endsAt": (now + datetime.timedelta(days=2)).isoformat(), "platforms": ["ios", "android"]}
json.dump(manifest, open(path, "w"), indent=2)
PY
}

# Starts livery on 127.0.0.1 and a free port with WORK/skins and WORK/data (created if missing) and the given extra
# flags, logging to WORK/livery.log (appending, so `: >` empties it while livery runs) at BENCH_LOG_LEVEL (warning:
# no request lines; info is the default level of `livery serve`); returns once it listens and is ready. Sets
# LIVERY_PID and LIVERY_PORT.
bench_start_livery() {  # work [flags...]
    local work=$1
    shift
    mkdir -p "$work/skins" "$work/data"
    : >"$work/livery.log"  # before the wait loop reads it (the child's redirect may come later; set -e stops on a failed read)
    "$LIVERY" serve --host 127.0.0.1 --port 0 --log-level "${BENCH_LOG_LEVEL:-warning}" --skins-dir "$work/skins" \
        --data-dir "$work/data" "$@" >>"$work/livery.log" 2>&1 &
    LIVERY_PID=$!
    PIDS+=("$LIVERY_PID")
    for _ in $(seq 1 600); do
        LIVERY_PORT=$(sed -n 's/^LIVERY_LISTENING .*:\([0-9]*\)$/\1/p' "$work/livery.log")
        [ -n "$LIVERY_PORT" ] && curl -fs -o /dev/null "http://127.0.0.1:$LIVERY_PORT/readyz" && return 0
        sleep 0.05
    done
    echo "livery did not start" >&2; cat "$work/livery.log" >&2; return 1
}

# Starts the nginx peer (bench/client/nginx.conf: 2 workers, the files of $work/www, `sendfile`, `open_file_cache`)
# for the scripts that compare with it, and waits until it serves $work/www/package.zip. Sets NGINX_PORT (no access
# log), NGINX_LOG_PORT (`access_log … buffer=64k`), NGINX_BASE, NGINX_LOG_BASE and NGINX_PID (the master; its
# workers are `pgrep -P "$NGINX_PID"`). Everything nginx writes stays in $work.
bench_start_nginx() {  # work
    local work=$1
    NGINX_PORT=$(free_port)
    NGINX_LOG_PORT=$(free_port)
    sed -e "s|@WORK@|$work|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@LOGPORT@|$NGINX_LOG_PORT|g" \
        -e "s|@AFFINITY@|$NGINX_AFFINITY|g" "$ROOT/bench/client/nginx.conf" >"$work/nginx.conf"
    nginx -p "$work" -c "$work/nginx.conf" -e "$work/error.log" &
    NGINX_PID=$!
    PIDS+=("$NGINX_PID")
    NGINX_BASE="http://127.0.0.1:$NGINX_PORT"
    NGINX_LOG_BASE="http://127.0.0.1:$NGINX_LOG_PORT"
    wait_for_http "$NGINX_BASE/package.zip"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

wait_for_http() {  # url
    for _ in $(seq 1 400); do
        curl -fs -o /dev/null "$1" && return 0
        sleep 0.05
    done
    echo "no answer from $1" >&2
    return 1
}

# Runs wrk once and prints "req_per_sec p50_ms p99_ms mb_per_sec"; wrk's errors go to stderr.
wrk_measure() {  # threads connections duration url [wrk args...]
    local threads=$1 connections=$2 duration=$3 url=$4
    shift 4
    wrk -t"$threads" -c"$connections" -d"$duration" --latency "$@" "$url" | python3 -c '
import re, sys
text = sys.stdin.read()
def ms(value):
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
def mb(value):
    number, unit = re.fullmatch(r"([0-9.]+)([KMG]?B)", value).groups()
    return float(number) * {"B": 1e-6, "KB": 1.024e-3, "MB": 1.048576, "GB": 1073.741824}[unit]
rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1))
p50 = ms(re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1))
p99 = ms(re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1))
rate = mb(re.search(r"Transfer/sec:\s+(\S+)", text).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)", text)
if errors:
    print("wrk reported errors: " + errors.group(0), file=sys.stderr)
print(f"{rps:.0f} {p50:.3f} {p99:.3f} {rate:.1f}")
'
}

# Runs wrk once with the script's THREADS and DURATION; prints "req_per_sec p99_ms mb_per_sec".
measure() {  # connections url [wrk args...]
    local connections=$1 url=$2
    shift 2
    wrk_measure "$THREADS" "$connections" "$DURATION" "$url" "$@" | awk '{ print $1, $3, $4 }'
}

# CPU time (user + system, in clock ticks) the processes have used so far: a cost per request that a loaded,
# shared machine does not skew the way it skews requests per second.
cpu_ticks() {  # pid...
    local total=0 pid fields
    for pid in "$@"; do
        read -r -a fields <"/proc/$pid/stat"
        total=$((total + fields[13] + fields[14]))
    done
    echo "$total"
}

# PIDS_OF: the process and its children (nginx's master and workers), for cpu_ticks.
pids_of() {  # pid
    echo "$1 $(pgrep -P "$1" | tr '\n' ' ')"
}

# The CPU time the host's hypervisor took from this machine so far (steal, in clock ticks over every CPU): time a
# neighbour ran while our threads were ready, which shows up as latency tails and slow rounds that no change of ours
# made.
steal_ticks() {
    local fields
    read -r -a fields </proc/stat
    echo "${fields[8]:-0}"
}

# Like measure, with the CPU time (user + system) the server processes used per request, in microseconds, as a
# fourth column, and the share of the machine's CPU time stolen by the host during the run, in percent, as a fifth:
# "req_per_sec p99_ms mb_per_sec cpu_us_per_request steal_percent" (a quiet machine steals well under 1 %).
# DURATION in seconds (`10s`). Files named in BENCH_TRUNCATE (logs) are emptied afterwards, so long runs do not
# fill the disk.
measure_cpu() {  # "pid..." connections url [wrk args...]
    local pids=$1 before after steal_before steal_after result
    shift
    before=$(cpu_ticks $pids)
    steal_before=$(steal_ticks)
    result=$(measure "$@")
    steal_after=$(steal_ticks)
    after=$(cpu_ticks $pids)
    for file in ${BENCH_TRUNCATE:-}; do : >"$file"; done
    read -r rps _ <<<"$result"
    echo "$result $(python3 -c "
import os
ticks, seconds = os.sysconf('SC_CLK_TCK'), ${DURATION%s}
print(f'{($after - $before) / ticks / max(1, $rps * seconds) * 1e6:.1f}', end=' ')
print(f'{($steal_after - $steal_before) / ticks / (seconds * os.cpu_count()) * 100:.1f}')")"
}

# The median row by its first column (req/s) of newline-separated rows.
median_row() {  # rows
    printf '%s' "$1" | sort -n -k1,1 | awk '{ rows[NR] = $0 } END { print rows[int((NR + 1) / 2)] }'
}
