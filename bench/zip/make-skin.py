#!/usr/bin/env python3
"""Generates a skin-like folder for the zip benchmark: mostly PNG files (a real PNG signature followed by
incompressible bytes, like real image data), their @2x/@3x variants, and some JSON (config, Lottie).

    make-skin.py DIR TOTAL_MB [SEED]

Deterministic for a given size and seed.
"""
import json, os, random, sys

out, total_mb = sys.argv[1], float(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 2027)
target = int(total_mb * 1024 * 1024)
png_signature = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

def write(rel, data):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)

written = 0
# About 6% JSON: a config with many modules and a few Lottie animations.
modules = {}
for m in range(max(20, target // 40_000)):
    modules["module_%d" % m] = {
        "colors": {"color_background": "#FFEEDD", "color_text": "rgba<254,220,189,0.9>", "color_tab_%d" % m: "B2D235 0.9"},
        "images": {"tab_home": "tab_home_%d.png" % m, "banner": {"name": "banner_%d" % m}},
        "values": {"corner_radius": m % 12, "title": "Spring Festival %d" % m},
    }
written += write("config.json", json.dumps({"modules": modules}, indent=2).encode())
for n in range(max(1, target // (8 * 1024 * 1024)) + 2):
    frames = [{"t": i, "s": [rng.randint(0, 255) for _ in range(4)], "e": [rng.randint(0, 255) for _ in range(4)]} for i in range(target // 200_000 + 200)]
    written += write("lottie/fireworks_%d.json" % n, json.dumps({"v": "5.7.4", "fr": 30, "layers": frames}).encode())
written += write("skin.json", json.dumps({"id": "bench", "title": "Benchmark skin", "app": "ziroom"}).encode())

# The rest: PNGs at 1x/2x/3x, mostly small icons, some banners up to ~2 MB at 3x.
index = 0
while written < target:
    base = rng.choices([3_000, 8_000, 20_000, 60_000, 200_000, 600_000], weights=[30, 25, 20, 12, 8, 5])[0]
    for scale, suffix in ((1, ""), (2, "@2x"), (3, "@3x")):
        size = int(base * scale * scale / 3 * rng.uniform(0.7, 1.3))
        written += write("images/img_%04d%s.png" % (index, suffix), png_signature + rng.randbytes(size))
    index += 1
print(out, written)
