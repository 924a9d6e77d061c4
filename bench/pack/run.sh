#!/usr/bin/env bash
# `livery pack` benchmark: generates a valid ~5 MB and ~50 MB skin (bench/pack/make-skin.py: real PNGs, some
# Lottie JSON, a config.json referencing every file), then times, in the same hyperfine run,
#   livery:  .build/release/livery pack {src} -o {out}     (validation, hashing for the sign, zip, fsync, rename)
#   zip -6:  cd {src} && zip -q -6 -r -X {out} .           (the peer the target is set against)
#   zip -0:  cd {src} && zip -q -0 -r -X {out} .           (store only, for reference: the cost of copying)
#   validate: .build/release/livery validate {src}         (for reference: the validation that pack includes)
# and prints times, archive sizes and the ratios against the target (time <= 0.3x zip -6, size <= 1.01x zip -6).
#
# The package holds every file of the folder except skin.json (images are pinned at @3x, so no scale is
# dropped), so both tools archive the same bytes. Knobs: SIZES_MB (default "5 50"), RUNS (default 10),
# WORK (scratch folder, default /tmp/livery-pack-bench), SKIP_BUILD=1 (use the existing release build).
source "$(dirname "$0")/../lib.sh"

SIZES_MB=${SIZES_MB:-"5 50"}
RUNS=${RUNS:-10}
WORK=${WORK:-/tmp/livery-pack-bench}
bench_require hyperfine zip unzip python3
bench_build
mkdir -p "$WORK"
generator_digest=$(sha256sum bench/pack/make-skin.py | cut -c1-16)

printf '%s\n' "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%s\n' "load before: $(uptime | sed 's/.*load average: //')"
printf '%s\n' "livery: $LIVERY pack {src} -o {out}   (zlib $(python3 -c 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)'))"
printf '%s\n\n' "peer:   zip -6 -r -X ($(zip -v | sed -n 2p | xargs))"

for size in $SIZES_MB; do
  src="$WORK/skin-${size}mb"
  stamp="$WORK/skin-${size}mb.generator"
  if [ ! -d "$src" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$generator_digest" ]; then
    rm -rf "$src"
    python3 bench/pack/make-skin.py "$src" "$size" >/dev/null
    echo "$generator_digest" >"$stamp"
  fi
  # livery pack only packs valid skins: make sure this one is (and has no warnings, so nothing is left out).
  report=$("$LIVERY" validate "$src") || { echo "$report"; exit 1; }
  case "$report" in *", 0 errors, 0 warnings"*) ;; *) echo "$report"; exit 1 ;; esac

  ours="$WORK/livery-${size}mb.zip"
  zip6="$WORK/zip6-${size}mb.zip"
  zip0="$WORK/zip0-${size}mb.zip"
  json="$WORK/hyperfine-${size}mb.json"
  hyperfine --style none --warmup 2 --runs "$RUNS" --export-json "$json" \
    --command-name livery --prepare "rm -f '$ours'" "$LIVERY pack '$src' -o '$ours'" \
    --command-name 'zip -6' --prepare "rm -f '$zip6'" "cd '$src' && zip -q -6 -r -X '$zip6' ." \
    --command-name 'zip -0' --prepare "rm -f '$zip0'" "cd '$src' && zip -q -0 -r -X '$zip0' ." \
    --command-name validate --prepare true "$LIVERY validate '$src'" \
    >/dev/null 2>"$WORK/hyperfine-${size}mb.log" || { cat "$WORK/hyperfine-${size}mb.log"; exit 1; }

  # Peak memory of one pack (KiB), built from scratch; then independent checks of the archive.
  rm -f "$ours"
  rss=$( { /usr/bin/time -f '%M' "$LIVERY" pack "$src" -o "$ours" >/dev/null; } 2>&1 | tail -1)
  unzip -tq "$ours" >/dev/null || { echo "unzip -t rejected $ours"; exit 1; }

  python3 - "$json" "$src" "$ours" "$zip6" "$zip0" "$rss" <<'PY'
import json, os, sys, zipfile
results, src, ours, zip6, zip0, rss = sys.argv[1:]
data = {r["command"]: r for r in json.load(open(results))["results"]}
paths = [os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src) for f in fs]
source = sum(os.path.getsize(os.path.join(src, p)) for p in paths)
pngs = sum(os.path.getsize(os.path.join(src, p)) for p in paths if p.endswith(".png"))
# Same content: livery's entries are the folder's files minus skin.json; zip also lists folders.
ours_names = sorted(zipfile.ZipFile(ours).namelist())
zip_files = sorted(n for n in zipfile.ZipFile(zip6).namelist() if not n.endswith("/"))
if ours_names != sorted(p for p in zip_files if p != "skin.json"):
    sys.exit("the archives hold different files")
size = {"livery": os.path.getsize(ours), "zip -6": os.path.getsize(zip6), "zip -0": os.path.getsize(zip0)}
print("skin %s: %d files, %.1f MB (%.0f%% PNG)" % (os.path.basename(src), len(paths), source / 1e6, 100 * pngs / source))
print("  %-8s %12s %12s %14s" % ("", "mean time", "stddev", "archive bytes"))
for name in ("livery", "zip -6", "zip -0"):
    r = data[name]
    print("  %-8s %9.1f ms %9.1f ms %14d" % (name, r["mean"] * 1e3, r["stddev"] * 1e3, size[name]))
t = data["livery"]["mean"] / data["zip -6"]["mean"]
s = size["livery"] / size["zip -6"]
r = data["validate"]
print("  %-8s %9.1f ms %9.1f ms %14s   (livery validate alone: the part of livery pack spent validating)" % ("validate", r["mean"] * 1e3, r["stddev"] * 1e3, "-"))
print("  time livery / zip -6 = %.3f  (target <= 0.300: %s)" % (t, "met" if t <= 0.3 else "MISSED"))
print("  size livery / zip -6 = %.4f (target <= 1.0100: %s)" % (s, "met" if s <= 1.01 else "MISSED"))
print("  livery peak RSS: %.1f MB; archives hold the same %d files (zip's also has skin.json and folder entries)" % (int(rss) / 1024, len(ours_names)))
print()
PY
done
printf '%s\n' "load after: $(uptime | sed 's/.*load average: //')"
