#!/usr/bin/env python3
"""Writes a skin folder whose config.json is about SIZE bytes (default 16,000,000: under the 16 MiB per-file
limit) of many small modules, each with colors, values and remote images, plus a small dark override: the
shape that costs the most per byte to parse and validate.  Usage: make-config.py DIR [SIZE]"""
import json, os, sys

folder = sys.argv[1]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 16_000_000
os.makedirs(folder, exist_ok=True)
json.dump({"id": "memory-bench", "title": "Memory bench", "app": "demo"}, open(os.path.join(folder, "skin.json"), "w"))

def module(n):
    return {
        "colors": {f"color_{k}": "#%06X" % ((n * 7919 + k * 104729) & 0xFFFFFF) for k in range(6)},
        "values": {"value_title": f"标题 {n}", "value_count": n, "value_on": n % 2 == 0,
                   "value_list": [n, n + 1, "x"], "value_ratio": 0.5},
        "images": {"image_banner": f"https://cdn.example.com/banners/{n}.png"},
    }

# Write the modules one by one so the generator itself stays small, and stop just under `size`.
path = os.path.join(folder, "config.json")
with open(path, "w", encoding="utf-8") as out:
    out.write("{")
    written, n = 1, 0
    while True:
        text = json.dumps(f"module_{n:06d}") + ":" + json.dumps(module(n), ensure_ascii=False, separators=(",", ":"))
        tail = ',"dark":{"module_000000":{"colors":{"color_0":"#000000"}}}}'
        piece = ("," if n else "") + text
        if written + len(piece.encode()) + len(tail) > size:
            break
        out.write(piece)
        written += len(piece.encode())
        n += 1
    out.write(tail)
print(f"{path}: {os.path.getsize(path)} bytes, {n} modules")
