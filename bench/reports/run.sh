#!/usr/bin/env bash
# Reports benchmark (not a test): what phones' reports (POST /api/v1/reports, issue 26) cost the poll, and how many
# one replica (the file store: fsynced log, group commit) ingests. In one run, interleaved rounds of:
#   polls alone            wrk on /api/v1/skin (every request a different device)
#   polls beside reports   the same, while a second wrk streams report batches (one report each, a new device each)
#   reports alone          the report stream by itself
# Reported: polls/s alone and beside reports (their ratio: what reports take from polls on a machine of this many
# cores), and reports/s one replica ingests, alone and beside polls (each a 202, durable).
#
#   bench/reports/run.sh            (builds the release binary first; SKIP_BUILD=1 to reuse it)
#
# Knobs: DURATION (10s), CONNECTIONS (64, the polls'), REPORT_CONNECTIONS (16), THREADS (1 per wrk), ROUNDS (3; the
# median round is reported). LIVERY_BIN runs another binary (a debug build, say) instead of the release one.
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
REPORT_CONNECTIONS=${REPORT_CONNECTIONS:-16}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-3}

bench_require wrk python3 curl
bench_workdir livery-reports-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
if [ -n "${LIVERY_BIN:-}" ]; then LIVERY=$LIVERY_BIN; else bench_build; fi

echo "== generating one small skin for app demo" >&2
bench_demo_skin "$WORK/skins/bench" 1
# Rate limits out of the way: every report here comes from 127.0.0.1, and each device reports once.
bench_start_livery "$WORK" --report-address-rate 100000 --report-device-rate 3600
BASE="http://127.0.0.1:$LIVERY_PORT"
SIGN=$(curl -fs "$BASE/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=x" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["skinSign"])')
[ -n "$SIGN" ] || { echo "the poll answers no skin" >&2; exit 1; }
export SIGN
check=$(curl -fs -H 'Content-Type: application/json' --data-binary \
    '{"app":"demo","platform":"ios","appVersion":"7.2.0","deviceId":"check","reports":[{"skinSign":"'"$SIGN"'","outcome":"applied","at":"2026-12-24T18:00:00Z"}]}' \
    "$BASE/api/v1/reports")
[ "$check" = '{"accepted":1,"ignored":0}' ] || { echo "a report was not accepted: $check" >&2; exit 1; }

POLLS="$ROOT/bench/catalog/launches.lua"
echo "== wrk -t$THREADS -c$CONNECTIONS -d$DURATION polls (bench/catalog/launches.lua, BENCH_PATH=/api/v1/skin)" >&2
echo "== wrk -t$THREADS -c$REPORT_CONNECTIONS -d$DURATION reports (bench/reports/reports.lua); $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2

run_id=0
declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
    run_id=$((run_id + 1))
    alone=$(RUN_ID=$run_id BENCH_PATH=/api/v1/skin measure "$CONNECTIONS" "$BASE" -s "$POLLS" | awk '{ print $1, $2 }')
    echo "   round $round polls alone: $alone (polls/s p99 ms)" >&2
    RESULTS[alone]+="$alone"$'\n'

    run_id=$((run_id + 1))
    RUN_ID=$run_id measure "$REPORT_CONNECTIONS" "$BASE" -s "$ROOT/bench/reports/reports.lua" >"$WORK/beside.txt" &
    side=$!
    beside=$(RUN_ID=$run_id BENCH_PATH=/api/v1/skin measure "$CONNECTIONS" "$BASE" -s "$POLLS" | awk '{ print $1, $2 }')
    wait "$side"
    streamed=$(awk '{ print $1, $2 }' "$WORK/beside.txt")
    echo "   round $round polls beside reports: $beside; reports beside polls: $streamed" >&2
    RESULTS[beside]+="$beside"$'\n'
    RESULTS[streamed]+="$streamed"$'\n'

    run_id=$((run_id + 1))
    reports=$(RUN_ID=$run_id measure "$REPORT_CONNECTIONS" "$BASE" -s "$ROOT/bench/reports/reports.lua" | awk '{ print $1, $2 }')
    echo "   round $round reports alone: $reports (reports/s p99 ms)" >&2
    RESULTS[reports]+="$reports"$'\n'
done

read -r A_RPS A_P99 <<<"$(median_row "${RESULTS[alone]}")"
read -r B_RPS B_P99 <<<"$(median_row "${RESULTS[beside]}")"
read -r S_RPS S_P99 <<<"$(median_row "${RESULTS[streamed]}")"
read -r R_RPS R_P99 <<<"$(median_row "${RESULTS[reports]}")"
COUNTED=$(curl -fs "$BASE/metrics" | awk '/^livery_skin_reports_total/ { sum += $NF } END { printf "%d", sum }')

echo
printf '%-34s %10s %9s\n' "" "per second" "p99 ms"
printf '%-34s %10s %9s\n' "polls alone" "$A_RPS" "$A_P99"
printf '%-34s %10s %9s\n' "polls beside a report stream" "$B_RPS" "$B_P99"
printf '%-34s %10s %9s\n' "reports beside polls" "$S_RPS" "$S_P99"
printf '%-34s %10s %9s\n' "reports alone (one replica)" "$R_RPS" "$R_P99"
python3 -c "print(f'polls/s beside reports / alone     {$B_RPS / $A_RPS:.2f}x')"
echo "reports counted (livery_skin_reports_total, every run): $COUNTED"
echo "load average after the runs:$(uptime | sed 's/.*load average//')"
