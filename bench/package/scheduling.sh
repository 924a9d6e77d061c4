#!/usr/bin/env bash
# How the scheduler shares the two cores between the server and wrk during the ~30 KB download of
# bench/package/run.sh, for livery and for nginx serving the same bytes, in interleaved rounds. Per download:
#   server us   CPU time of the server (user + system, from /proc)
#   wrk us      CPU time of wrk itself (GNU time; includes its start and its connections)
#   preempted   the server's involuntary context switches: a thread taken off a core while it still had work
#   wrk sleeps  wrk's voluntary context switches: wrk waiting for a response
#
# On a machine where client and server share the cores, the pair settles in one of two ways. Either each side finds
# work waiting whenever it runs (few switches, large batches), or every response wakes wrk on the server's core and
# wrk preempts the server at once (one switch each way per response). Which one a run settles in moves req/s far
# more than the CPU time per download does; bench/HISTORY.md ("what decides a download round") has the figures.
#
#   bench/package/scheduling.sh            (SKIP_BUILD=1 reuses the release build)
#
# Knobs: CONNECTIONS (16), ROUNDS (5), DURATION (3s), AFFINITY (cpus, as bench/package/run.sh).
source "$(dirname "$0")/../lib.sh"

CONNECTIONS=${CONNECTIONS:-16}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-3s}
THREADS=2
# wrk's sleeps are counted from 0.3 s into its run, over half its duration less half a second: well before its
# threads exit, even on a busy machine (a count taken after they did would be short; it is shown as n/a).
WINDOW=$(python3 -c "print(max(0.3, ${DURATION%s} / 2 - 0.5))")

bench_require wrk nginx python3 curl
bench_workdir livery-scheduling
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
bench_build
bench_demo_skin "$WORK/skins/bench" 0.025 7
bench_start_livery "$WORK" --event-loop-affinity "$AFFINITY"
BASE="http://127.0.0.1:$LIVERY_PORT"
PACKAGE_PATH=$(curl -fs "$BASE/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["packageUrl"])')
mkdir -p "$WORK/www"
curl -fs "$BASE$PACKAGE_PATH" >"$WORK/www/package.zip"
cp "$WORK/www/package.zip" "$WORK/www/answer.json"
chmod 644 "$WORK/www/"*
bench_start_nginx "$WORK"
NGINX_WORKERS=$(pgrep -P "$NGINX_PID" | tr '\n' ' ')

# Context switches of every thread of the processes: "voluntary involuntary".
switches() {  # pid...
    python3 - "$@" <<'PY'
import glob, sys
voluntary = involuntary = 0
for pid in sys.argv[1:]:
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            for line in open(status):
                if line.startswith("voluntary_ctxt_switches"): voluntary += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches"): involuntary += int(line.split()[1])
        except OSError:
            pass
print(voluntary, involuntary)
PY
}

echo "== package: $(wc -c <"$WORK/www/package.zip") bytes; wrk -t$THREADS -c$CONNECTIONS -d$DURATION; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2
printf '%-8s %-7s %9s %10s %8s %10s %11s\n' round server "req/s" "server us" "wrk us" preempted "wrk sleeps"
for round in $(seq 1 "$ROUNDS"); do
    for name in livery nginx; do
        if [ "$name" = livery ]; then pids=$LIVERY_PID url=$BASE$PACKAGE_PATH; else pids=$NGINX_WORKERS url=$NGINX_BASE/package.zip; fi
        ticks_before=$(cpu_ticks $pids)
        read -r _ preempted_before <<<"$(switches $pids)"
        /usr/bin/time -f "%U %S" -o "$WORK/wrk.time" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$url" >"$WORK/wrk.out" &
        TIMED=$!
        # wrk's sleeps over WINDOW (its threads are children of GNU time).
        sleep 0.3
        WRK=$(pgrep -n -P "$TIMED" wrk)
        read -r sleeps_before _ <<<"$(switches "$WRK")"
        window_start=$(date +%s.%N)
        sleep "$WINDOW"
        read -r sleeps_after _ <<<"$(switches "$WRK")"
        window=$(python3 -c "import time; print(time.time() - $window_start)")
        wait "$TIMED"
        ticks_after=$(cpu_ticks $pids)
        read -r _ preempted_after <<<"$(switches $pids)"
        read -r wrk_user wrk_system <"$WORK/wrk.time"
        requests=$(awk '/requests in/ { print $1 }' "$WORK/wrk.out")
        rps=$(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.out")
        python3 -c "
import os
ticks = os.sysconf('SC_CLK_TCK')
print(f'{$round:<8} {\"$name\":<7} {$rps:9.0f} {($ticks_after - $ticks_before) / ticks / $requests * 1e6:10.2f}', end=' ')
print(f'{($wrk_user + $wrk_system) / $requests * 1e6:8.2f}', end=' ')
sleeps = $sleeps_after - $sleeps_before
print(f'{($preempted_after - $preempted_before) / $requests:10.3f}', end=' ')
print(f'{sleeps / ($rps * $window):11.3f}' if sleeps >= 0 else f'{\"n/a\":>11}')"
    done
done
echo "load average after the runs:$(uptime | sed 's/.*load average//')"
