#!/usr/bin/env bash
# Applying a 10 MB package on a phone: livery-phone (LiveryKit: poll, verify the signed answer, stream the download
# to disk hashing it as it arrives, unzip hostile-first into staging, validate config.json, rename, write state.json
# with fsync) against the same job done by curl + sha256sum + unzip -q (poll, download, check the hash, unzip into
# a temporary folder, rename), in one script on one machine. Reports time and peak RSS as ratios.
#
#   bench/sdk/run.sh            (ROUNDS=7 by default; SKIP_BUILD=1 reuses the release binaries)
#
# The package is incompressible (PNG-like images from bench/pack/make-skin.py), so unzip copies bytes rather than
# inflating and the comparison is dominated by transfer, hashing and writes, as on a phone. Each round starts
# from an empty storage folder (a first launch). Peak RSS of the peer is the largest of its three processes.
source "$(dirname "$0")/../lib.sh"
bench_require curl python3 unzip sha256sum
ROUNDS=${ROUNDS:-7}
bench_workdir livery-sdk
if [ -z "${SKIP_BUILD:-}" ] || [ "${SKIP_BUILD}" = 0 ]; then
    echo "== building release binaries (livery, livery-phone)" >&2
    swift build -c release --static-swift-stdlib --product livery >&2
    swift build -c release --product livery-phone >&2
fi
PHONE="$ROOT/.build/release/livery-phone"

bench_demo_skin "$BENCH_WORK/skins/sdk-bench" 10
"$LIVERY" keys create --id bench --out "$BENCH_WORK/bench.pem" >"$BENCH_WORK/bench.pub.pem" 2>/dev/null
bench_start_livery "$BENCH_WORK" --signing-key "$BENCH_WORK/bench.pem"
SERVER="http://127.0.0.1:$LIVERY_PORT"
POLL="$SERVER/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=bench&scale=3&appearance=light"
read -r URL SHA SIZE < <(curl -fs "$POLL" | python3 -c 'import json,sys; a=json.load(sys.stdin); print(a["packageUrl"], a["sha256"], a["size"])')
echo "package: $SIZE bytes, sha256 $SHA" >&2
curl -fs -o /dev/null "$SERVER$URL"  # warm the server's package cache for both

now() { date +%s%N; }
rss() { sed -n 's/^MAXRSS //p' "$1"; }

phone_times=(); peer_times=(); phone_rss=(); peer_rss=()
# --no-reports: the peer sends no outcome report, so neither does the phone here.
for round in $(seq 1 "$ROUNDS"); do
    rm -rf "$BENCH_WORK/phone" "$BENCH_WORK/peer"
    start=$(now)
    /usr/bin/time -f "MAXRSS %M" -o "$BENCH_WORK/phone.rss" "$PHONE" --server "$SERVER" --app demo --platform ios \
        --app-version 7.2.0 --device-id bench --storage "$BENCH_WORK/phone" --public-key "$BENCH_WORK/bench.pub.pem" \
        --no-reports >"$BENCH_WORK/phone.json"
    phone_times+=($(( ($(now) - start) / 1000 )))
    phone_rss+=("$(rss "$BENCH_WORK/phone.rss")")
    grep -q '"error":null' "$BENCH_WORK/phone.json" || { cat "$BENCH_WORK/phone.json" >&2; exit 1; }

    mkdir -p "$BENCH_WORK/peer"
    start=$(now)
    /usr/bin/time -f "MAXRSS %M" -o "$BENCH_WORK/peer1.rss" sh -c "curl -fs -o '$BENCH_WORK/peer/answer.json' '$POLL' && curl -fs -o '$BENCH_WORK/peer/p.zip' '$SERVER$URL'"
    /usr/bin/time -f "MAXRSS %M" -o "$BENCH_WORK/peer2.rss" sh -c "echo '$SHA  $BENCH_WORK/peer/p.zip' | sha256sum -c --quiet"
    /usr/bin/time -f "MAXRSS %M" -o "$BENCH_WORK/peer3.rss" sh -c "unzip -q '$BENCH_WORK/peer/p.zip' -d '$BENCH_WORK/peer/staging' && mv '$BENCH_WORK/peer/staging' '$BENCH_WORK/peer/skin' && rm '$BENCH_WORK/peer/p.zip'"
    peer_times+=($(( ($(now) - start) / 1000 )))
    peer_rss+=("$(printf '%s\n' "$(rss "$BENCH_WORK/peer1.rss")" "$(rss "$BENCH_WORK/peer2.rss")" "$(rss "$BENCH_WORK/peer3.rss")" | sort -n | tail -1)")
    echo "round $round: livery-phone ${phone_times[-1]} us, ${phone_rss[-1]} KB; curl+sha256sum+unzip ${peer_times[-1]} us, ${peer_rss[-1]} KB" >&2
done

python3 - "${phone_times[*]}" "${peer_times[*]}" "${phone_rss[*]}" "${peer_rss[*]}" "$SIZE" <<'PY'
import statistics, sys
phone_t, peer_t, phone_m, peer_m = ([int(x) for x in a.split()] for a in sys.argv[1:5])
size = int(sys.argv[5])
mt, pt = statistics.median(phone_t), statistics.median(peer_t)
mm, pm = statistics.median(phone_m), statistics.median(peer_m)
print(f"package {size / 1e6:.1f} MB, {len(phone_t)} rounds (medians)")
print(f"  livery-phone            {mt / 1000:8.1f} ms  peak RSS {mm / 1024:6.1f} MB")
print(f"  curl+sha256sum+unzip    {pt / 1000:8.1f} ms  peak RSS {pm / 1024:6.1f} MB")
print(f"  time ratio livery-phone / peer = {mt / pt:.2f}   (rounds {min(a / b for a, b in zip(phone_t, peer_t)):.2f}-{max(a / b for a, b in zip(phone_t, peer_t)):.2f})")
print(f"  peak RSS ratio livery-phone / peer = {mm / pm:.2f}")
PY
