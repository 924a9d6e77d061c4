#!/usr/bin/env bash
# Catalog benchmark (not a test): launches of distinct devices through a cache (Debian's nginx proxy_cache, one
# worker, set up as deploy/README.md tells a CDN to be) in front of Livery, the signed catalog
# (/api/v1/catalog, one document per app and platform) against the per-device poll (/api/v1/skin), in one run:
# launches per second through the cache and origin requests per 100,000 launches. Then the catalog's size, raw
# and gzipped, for an app with 50 skins x 9 variants.
#
#   bench/catalog/run.sh            (builds the release binary first; SKIP_BUILD=1 to reuse it)
#
# Knobs: DURATION (10s), CONNECTIONS (64), THREADS (2), ROUNDS (3, interleaved; the median round by launches/s is
# reported), CACHE_MAX_AGE (60: --cache-max-age, how long the cache keeps a catalog). LIVERY_BIN runs another
# binary (a debug build, say) instead of the release one.
source "$(dirname "$0")/../lib.sh"

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
CACHE_MAX_AGE=${CACHE_MAX_AGE:-60}

bench_require wrk nginx python3 curl gzip
bench_workdir livery-catalog-bench
WORK=$BENCH_WORK
ulimit -n "$(ulimit -Hn)"
if [ -n "${LIVERY_BIN:-}" ]; then LIVERY=$LIVERY_BIN; else bench_build; fi

echo "== generating skins: one 1 MB skin for app demo, 50 small skins for app big" >&2
bench_demo_skin "$WORK/skins/bench" 1
python3 - "$WORK/skins" <<'PY'
import datetime, json, os, sys
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
for n in range(50):
    folder = os.path.join(sys.argv[1], f"big-{n:02d}")
    os.makedirs(folder)
    start = now + datetime.timedelta(hours=6 * n - 24)
    json.dump({"id": f"big-{n:02d}", "title": f"Big {n}", "app": "big",
               "release": {"startsAt": start.isoformat(), "endsAt": (start + datetime.timedelta(days=3)).isoformat(),
                           "platforms": ["ios", "android"], "priority": n % 5, "rollout": 10 + n}},
              open(os.path.join(folder, "skin.json"), "w"))
    json.dump({"home": {"colors": {"color_background": "#FFFFFF"}, "values": {"value_marker": str(n)}}},
              open(os.path.join(folder, "config.json"), "w"))
PY
"$LIVERY" keys create --id bench --out "$WORK/bench.pem" >"$WORK/bench.pub"
bench_start_livery "$WORK" --signing-key "$WORK/bench.pem" --cache-max-age "$CACHE_MAX_AGE"
ORIGIN=$LIVERY_PORT

NGINX_PORT=$(free_port)
sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@ORIGIN@|$ORIGIN|g" \
    "$ROOT/bench/catalog/nginx.conf" >"$WORK/nginx.conf"
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
PIDS+=($!)
CACHE="http://127.0.0.1:$NGINX_PORT"
wait_for_http "$CACHE/readyz"
curl -fs "$CACHE/api/v1/catalog?app=demo&platform=ios" | grep -q '"skinId":"bench-1mb"' \
    || { echo "the catalog through the cache does not list the skin" >&2; exit 1; }
curl -fs "$CACHE/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=x" | grep -q '"skinId":"bench-1mb"' \
    || { echo "the poll through the cache does not answer the skin" >&2; exit 1; }

# Requests for PATH that the cache passed to the origin, and all requests for PATH, from its access log.
origin_count() {  # path
    sleep 1.2  # the access log is flushed every second
    awk -v path="$1" '$1 == path { total++; if ($3 != "-") origin++ } END { printf "%d %d\n", origin, total }' "$WORK/access.log"
}

echo "== wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency -s bench/catalog/launches.lua through nginx proxy_cache" >&2
echo "== (every request a different device); --cache-max-age $CACHE_MAX_AGE; $ROUNDS interleaved rounds" >&2
echo "== machine: $(nproc) cores, load average$(uptime | sed 's/.*load average//')" >&2

declare -A RESULTS
run_id=0
for round in $(seq 1 "$ROUNDS"); do
    for name in catalog poll; do
        path=/api/v1/$([ "$name" = catalog ] && echo catalog || echo skin)
        read -r before_origin before_total <<<"$(origin_count "$path")"
        run_id=$((run_id + 1))
        rate=$(RUN_ID=$run_id BENCH_PATH=$path measure "$CONNECTIONS" "$CACHE" -s "$ROOT/bench/catalog/launches.lua" | awk '{ print $1, $2 }')
        read -r after_origin after_total <<<"$(origin_count "$path")"
        origin=$((after_origin - before_origin))
        total=$((after_total - before_total))
        per100k=$(python3 -c "print(f'{$origin * 100000 / max($total, 1):.1f}')")
        echo "   round $round $name: $rate launches/s p99 ms; $origin of $total reached the origin ($per100k per 100,000)" >&2
        RESULTS[$name]+="$rate $per100k $origin $total"$'\n'
    done
done

read -r C_RPS C_P99 _ <<<"$(median_row "${RESULTS[catalog]}")"
read -r P_RPS P_P99 _ <<<"$(median_row "${RESULTS[poll]}")"
# Origin requests over every round together (a cached catalog reaches the origin about once per max-age, so a
# single 10 s round may see none).
sum_origin() { printf '%s' "$1" | awk '{ origin += $4; total += $5 } END { printf "%d %d %.1f\n", origin, total, origin * 100000 / (total ? total : 1) }'; }
read -r C_ORIGIN C_TOTAL C_PER <<<"$(sum_origin "${RESULTS[catalog]}")"
read -r P_ORIGIN P_TOTAL P_PER <<<"$(sum_origin "${RESULTS[poll]}")"

# The catalog of an app with 50 skins x 9 variants, as signed and sent.
curl -fs -o "$WORK/big.json" "$CACHE/api/v1/catalog?app=big&platform=ios"
BIG_ENTRIES=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['skins']), sum(len(s['packages']) for s in d['skins']))" "$WORK/big.json")
BIG_RAW=$(wc -c <"$WORK/big.json")
BIG_GZIP=$(gzip -9 -c "$WORK/big.json" | wc -c)

echo
printf '%-44s %12s %9s %22s\n' "through nginx proxy_cache" "launches/s" "p99 ms" "origin per 100,000"
printf '%-44s %12s %9s %22s\n' "catalog /api/v1/catalog (one per app+platform)" "$C_RPS" "$C_P99" "$C_PER"
printf '%-44s %12s %9s %22s\n' "poll /api/v1/skin (one per device)" "$P_RPS" "$P_P99" "$P_PER"
echo "origin requests: catalog $C_ORIGIN of $C_TOTAL launches, poll $P_ORIGIN of $P_TOTAL launches (all rounds)"
python3 -c "
print(f'launches/s catalog/poll          {$C_RPS / $P_RPS:.2f}x')
print(f'origin requests per launch       poll/catalog = {($P_ORIGIN / $P_TOTAL) / max($C_ORIGIN / $C_TOTAL, 1 / $C_TOTAL):.0f}x (at least)')
"
echo "catalog of 50 skins x 9 variants: $BIG_ENTRIES (entries, packages); $BIG_RAW bytes raw, $BIG_GZIP bytes gzip -9"
echo "load average after the runs:$(uptime | sed 's/.*load average//')"
