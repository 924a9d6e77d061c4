#!/usr/bin/env bash
# Zip writer benchmark: packs a generated ~5 MB and ~50 MB skin-like folder (mostly PNG, some JSON) with
# Livery's writer and with Info-ZIP `zip -6 -r -X` in the same run, with hyperfine; prints times, sizes and
# the ratios against the target (time ≤ 0.3× zip -6, size ≤ 1.01× zip -6).
#
#   bench/zip/run.sh                 # the zip-bench driver (ZipArchiveWriter, release build)
#   PACK_CMD='.build/release/livery pack {src} -o {out}' bench/zip/run.sh
#
# PACK_CMD is a template: {src} is the skin folder, {out} the archive to write (removed before each run).
# Other knobs: SIZES_MB (default "5 50"), RUNS (default 10), WORK (scratch folder, default /tmp/livery-zip-bench).
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZES_MB=${SIZES_MB:-"5 50"}
RUNS=${RUNS:-10}
WORK=${WORK:-/tmp/livery-zip-bench}
PACK_CMD=${PACK_CMD:-'.build/release/zip-bench {src} {out}'}

if [[ "$PACK_CMD" == .build/release/zip-bench* ]]; then
  swift build -c release --product zip-bench >/dev/null
fi
mkdir -p "$WORK"

printf '%s\n' "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%s\n' "livery: $PACK_CMD"
printf '%s\n\n' "peer:   zip -6 -r -X ($(zip -v | sed -n 2p | xargs))"

for size in $SIZES_MB; do
  src="$WORK/skin-${size}mb"
  [ -d "$src" ] || python3 bench/zip/make-skin.py "$src" "$size" >/dev/null
  ours="$WORK/livery-${size}mb.zip"
  zip6="$WORK/zip6-${size}mb.zip"
  zip0="$WORK/zip0-${size}mb.zip"
  cmd=${PACK_CMD//\{src\}/$src}
  cmd=${cmd//\{out\}/$ours}
  json="$WORK/hyperfine-${size}mb.json"

  hyperfine --style none --warmup 2 --runs "$RUNS" --export-json "$json" \
    --command-name livery --prepare "rm -f '$ours'" "$cmd" \
    --command-name 'zip -6' --prepare "rm -f '$zip6'" "cd '$src' && zip -q -6 -r -X '$zip6' ." \
    --command-name 'zip -0' --prepare "rm -f '$zip0'" "cd '$src' && zip -q -0 -r -X '$zip0' ." \
    >/dev/null 2>"$WORK/hyperfine-${size}mb.log" || { cat "$WORK/hyperfine-${size}mb.log"; exit 1; }

  # Peak memory of one pack (KiB), with the archive rebuilt from scratch; then an independent CRC check.
  rm -f "$ours"
  rss=$( { /usr/bin/time -f '%M' sh -c "$cmd" >/dev/null; } 2>&1 | tail -1)
  unzip -tq "$ours" >/dev/null || { echo "unzip -t rejected $ours"; exit 1; }

  python3 - "$json" "$src" "$ours" "$zip6" "$zip0" "$rss" <<'PY'
import json, os, sys
results, src, ours, zip6, zip0, rss = sys.argv[1:]
data = {r["command"]: r for r in json.load(open(results))["results"]}
source = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(src) for f in fs)
files = sum(len(fs) for _, _, fs in os.walk(src))
size = {"livery": os.path.getsize(ours), "zip -6": os.path.getsize(zip6), "zip -0": os.path.getsize(zip0)}
print("skin %s: %d files, %.1f MB" % (os.path.basename(src), files, source / 1e6))
print("  %-8s %12s %12s %14s" % ("", "mean time", "stddev", "archive bytes"))
for name in ("livery", "zip -6", "zip -0"):
    r = data[name]
    print("  %-8s %9.1f ms %9.1f ms %14d" % (name, r["mean"] * 1e3, r["stddev"] * 1e3, size[name]))
t = data["livery"]["mean"] / data["zip -6"]["mean"]
s = size["livery"] / size["zip -6"]
print("  time livery / zip -6 = %.3f  (target <= 0.300: %s)" % (t, "met" if t <= 0.3 else "MISSED"))
print("  size livery / zip -6 = %.4f (target <= 1.0100: %s)" % (s, "met" if s <= 1.01 else "MISSED"))
print("  livery peak RSS: %.1f MB" % (int(rss) / 1024))
print()
PY
done
