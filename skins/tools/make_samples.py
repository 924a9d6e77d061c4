#!/usr/bin/env python3
"""Writes Livery's sample holiday skins into skins/ using only the Python standard library.

    python3 skins/tools/make_samples.py            # (re)write the samples next to this tools/ folder
    python3 skins/tools/make_samples.py --out DIR  # write them somewhere else

Everything is drawn procedurally (anti-aliased shapes on gradients), so the output is small and
the same on every run: PNGs are RGBA written with zlib level 9, the GIF is LZW-encoded here, and
the Lottie file is plain JSON. The script decodes every GIF it writes again to check its LZW stream.
Byte-identical output needs the same zlib version; the pixels are always identical.

Each skin folder holds skin.json, config.json and only files config.json references, with every
image at @2x and @3x (tab icons also at 1x), so `livery validate` reports no errors and no warnings.
"""

import argparse
import json
import math
import os
import struct
import zlib

# ---------------------------------------------------------------------------------------------------
# Drawing: an RGBA float canvas with shapes whose edges get analytic coverage (a 1-pixel ramp).


class Canvas:
    def __init__(self, width, height, color=(0, 0, 0, 0)):
        self.width = width
        self.height = height
        self.pixels = [list(color) for _ in range(width * height)]

    def blend(self, x, y, color, coverage):
        if coverage <= 0 or not (0 <= x < self.width and 0 <= y < self.height):
            return
        r, g, b, a = color
        a *= min(1.0, coverage)
        p = self.pixels[y * self.width + x]
        out_a = a + p[3] * (1 - a)
        if out_a <= 0:
            return
        for i, c in enumerate((r, g, b)):
            p[i] = (c * a + p[i] * p[3] * (1 - a)) / out_a
        p[3] = out_a

    def vertical_gradient(self, top, bottom):
        for y in range(self.height):
            t = y / max(1, self.height - 1)
            color = [top[i] + (bottom[i] - top[i]) * t for i in range(4)]
            for x in range(self.width):
                self.pixels[y * self.width + x] = list(color)

    def _box(self, x0, y0, x1, y1):
        return (max(0, int(math.floor(x0)) - 1), max(0, int(math.floor(y0)) - 1),
                min(self.width, int(math.ceil(x1)) + 1), min(self.height, int(math.ceil(y1)) + 1))

    def ellipse(self, cx, cy, rx, ry, color):
        x0, y0, x1, y1 = self._box(cx - rx, cy - ry, cx + rx, cy + ry)
        scale = min(rx, ry)
        for y in range(y0, y1):
            for x in range(x0, x1):
                dx = (x + 0.5 - cx) / rx
                dy = (y + 0.5 - cy) / ry
                distance = (math.sqrt(dx * dx + dy * dy) - 1) * scale
                self.blend(x, y, color, 0.5 - distance)

    def circle(self, cx, cy, r, color):
        self.ellipse(cx, cy, r, r, color)

    def polygon(self, points, color):
        """A convex polygon, points in either winding order."""
        self.polygons([points], color)

    def polygons(self, shapes, color):
        """The union of convex polygons, blended once per pixel so shared edges leave no seam."""
        prepared = []
        xs, ys = [], []
        for points in shapes:
            area = sum(points[i][0] * points[(i + 1) % len(points)][1] - points[(i + 1) % len(points)][0] * points[i][1]
                       for i in range(len(points)))
            if area < 0:
                points = list(reversed(points))
            edges = []
            for i in range(len(points)):
                (ax, ay), (bx, by) = points[i], points[(i + 1) % len(points)]
                length = math.hypot(bx - ax, by - ay) or 1
                edges.append((ax, ay, (bx - ax) / length, (by - ay) / length))
            prepared.append(edges)
            xs += [p[0] for p in points]
            ys += [p[1] for p in points]
        x0, y0, x1, y1 = self._box(min(xs), min(ys), max(xs), max(ys))
        for y in range(y0, y1):
            for x in range(x0, x1):
                px, py = x + 0.5, y + 0.5
                # Distance to the nearest edge, positive inside (the interior is left of every edge).
                inside = max(min(dx * (py - ay) - dy * (px - ax) for ax, ay, dx, dy in edges) for edges in prepared)
                self.blend(x, y, color, 0.5 + inside)

    def rect(self, x, y, w, h, color):
        self.polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], color)

    def star(self, cx, cy, outer, inner, color, points=5, rotation=-math.pi / 2):
        corners = []
        for i in range(points * 2):
            radius = outer if i % 2 == 0 else inner
            angle = rotation + i * math.pi / points
            corners.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
        self.polygons([[corners[2 * i], corners[(2 * i + 1) % (points * 2)], (cx, cy), corners[2 * i - 1]]
                       for i in range(points)], color)

    def line(self, ax, ay, bx, by, width, color):
        length = math.hypot(bx - ax, by - ay) or 1
        nx, ny = -(by - ay) / length * width / 2, (bx - ax) / length * width / 2
        self.polygon([(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)], color)

    def snowflake(self, cx, cy, r, width, color):
        for i in range(3):
            angle = i * math.pi / 3
            dx, dy = r * math.cos(angle), r * math.sin(angle)
            self.line(cx - dx, cy - dy, cx + dx, cy + dy, width, color)

    def rgba_bytes(self):
        rows = []
        for y in range(self.height):
            row = bytearray()
            for x in range(self.width):
                r, g, b, a = self.pixels[y * self.width + x]
                row += bytes((to8(r), to8(g), to8(b), to8(a)))
            rows.append(bytes(row))
        return rows


def to8(value):
    return max(0, min(255, int(round(value * 255))))


def hex_color(text, alpha=1.0):
    text = text.lstrip("#")
    return (int(text[0:2], 16) / 255, int(text[2:4], 16) / 255, int(text[4:6], 16) / 255, alpha)


# ---------------------------------------------------------------------------------------------------
# PNG (RFC 2083): IHDR, one IDAT, IEND; each row filtered with the filter giving the smallest sum.


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def filter_rows(rows, bpp=4):
    out = bytearray()
    previous = bytes(len(rows[0]))
    for row in rows:
        candidates = []
        sub = bytes((row[i] - (row[i - bpp] if i >= bpp else 0)) & 0xFF for i in range(len(row)))
        up = bytes((row[i] - previous[i]) & 0xFF for i in range(len(row)))
        for kind, data in ((0, row), (1, sub), (2, up)):
            score = sum(v if v < 128 else 256 - v for v in data)
            candidates.append((score, kind, data))
        _, kind, data = min(candidates)
        out.append(kind)
        out += data
        previous = row
    return bytes(out)


def png_bytes(canvas):
    rows = canvas.rgba_bytes()
    header = struct.pack(">IIBBBBB", canvas.width, canvas.height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header)
            + png_chunk(b"IDAT", zlib.compress(filter_rows(rows), 9)) + png_chunk(b"IEND", b""))


# ---------------------------------------------------------------------------------------------------
# GIF89a with LZW (variable code size, clear at 4096), looping via the NETSCAPE2.0 extension.


def lzw_encode(indices, min_code_size):
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    codes = []  # (code, size)

    def reset():
        return {bytes([i]): i for i in range(clear)}, end + 1, min_code_size + 1

    table, next_code, size = reset()
    codes.append((clear, size))
    word = bytes([indices[0]])
    for index in indices[1:]:
        candidate = word + bytes([index])
        if candidate in table:
            word = candidate
            continue
        codes.append((table[word], size))
        table[candidate] = next_code
        next_code += 1
        if next_code > (1 << size) and size < 12:
            size += 1
        if next_code == 4096:
            codes.append((clear, size))
            table, next_code, size = reset()
        word = bytes([index])
    codes.append((table[word], size))
    # The decoder adds one more entry after reading the last code, which may widen the end code.
    if next_code + 1 > (1 << size) and size < 12:
        size += 1
    codes.append((end, size))
    out, buffer, bits = bytearray(), 0, 0
    for code, width in codes:
        buffer |= code << bits
        bits += width
        while bits >= 8:
            out.append(buffer & 0xFF)
            buffer >>= 8
            bits -= 8
    if bits:
        out.append(buffer & 0xFF)
    return bytes(out)


def lzw_decode(data, min_code_size, expected):
    """An independent decoder, used to check every GIF written here."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    position, out = 0, bytearray()
    table, size, previous = None, min_code_size + 1, None
    bit_count = len(data) * 8
    while position + size <= bit_count:
        code = 0
        for i in range(size):
            bit_index = position + i
            code |= ((data[bit_index // 8] >> (bit_index % 8)) & 1) << i
        position += size
        if code == clear:
            table = [bytes([i]) for i in range(clear)] + [b"", b""]
            size, previous = min_code_size + 1, None
            continue
        if code == end:
            break
        if previous is None:
            entry = table[code]
        else:
            entry = table[code] if code < len(table) else table[previous] + table[previous][:1]
            table.append(table[previous] + entry[:1])
            if len(table) == (1 << size) and size < 12:
                size += 1
        out += entry
        previous = code
    assert bytes(out) == bytes(expected), "LZW round trip failed"


def gif_bytes(frames, palette, delay_cs):
    width, height = frames[0][0], frames[0][1]
    min_code_size = max(2, (len(palette) - 1).bit_length())
    table_bits = min_code_size
    padded = palette + [(0, 0, 0)] * ((1 << table_bits) - len(palette))
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0x80 | 0x70 | (table_bits - 1), 0, 0)
    for r, g, b in padded:
        out += bytes((r, g, b))
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    for _, _, indices in frames:
        # Graphic control: dispose to background, transparent index 0.
        out += b"\x21\xf9\x04" + bytes((0x09,)) + struct.pack("<H", delay_cs) + b"\x00\x00"
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
        data = lzw_encode(indices, min_code_size)
        lzw_decode(data, min_code_size, indices)
        out.append(min_code_size)
        for i in range(0, len(data), 255):
            block = data[i:i + 255]
            out.append(len(block))
            out += block
        out.append(0)
    out.append(0x3B)
    return bytes(out)


def palette_frames(size, count, draw, palette):
    """Draws `count` frames with `draw(canvas, index)` and maps them to `palette` (index 0 transparent)."""
    frames = []
    for index in range(count):
        canvas = Canvas(size, size)
        draw(canvas, index)
        indices = bytearray()
        for r, g, b, a in canvas.pixels:
            if a < 0.5:
                indices.append(0)
                continue
            rgb = (to8(r), to8(g), to8(b))
            best = min(range(1, len(palette)),
                       key=lambda i: sum((palette[i][k] - rgb[k]) ** 2 for k in range(3)))
            indices.append(best)
        frames.append((size, size, bytes(indices)))
    return frames


# ---------------------------------------------------------------------------------------------------
# Lottie (bodymovin) JSON: one shape layer with an ellipse whose scale and opacity animate.


def lottie_burst(name, color, frames=60, size=200):
    def keyframes(values):
        out = []
        for i, (t, v) in enumerate(values):
            frame = {"t": t, "s": v}
            if i < len(values) - 1:
                frame["i"] = {"x": [0.4], "y": [1]}
                frame["o"] = {"x": [0.6], "y": [0]}
            out.append(frame)
        return out

    def ring(index, delay):
        return {
            "ddd": 0, "ind": index, "ty": 4, "nm": "ring %d" % index, "sr": 1, "ip": 0, "op": frames, "st": 0,
            "ks": {
                "o": {"a": 1, "k": keyframes([(delay, [100]), (delay + 40, [0])])},
                "r": {"a": 0, "k": 0},
                "p": {"a": 0, "k": [size / 2, size / 2, 0]},
                "a": {"a": 0, "k": [0, 0, 0]},
                "s": {"a": 1, "k": keyframes([(delay, [10, 10, 100]), (delay + 40, [100, 100, 100])])},
            },
            "shapes": [{
                "ty": "gr", "nm": "burst",
                "it": [
                    {"ty": "el", "nm": "circle", "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [size * 0.8, size * 0.8]}},
                    {"ty": "st", "nm": "stroke", "c": {"a": 0, "k": color + [1]}, "o": {"a": 0, "k": 100},
                     "w": {"a": 0, "k": 6}, "lc": 2, "lj": 2},
                    {"ty": "tr", "p": {"a": 0, "k": [0, 0]}, "a": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [100, 100]},
                     "r": {"a": 0, "k": 0}, "o": {"a": 0, "k": 100}},
                ],
            }],
        }

    return {"v": "5.7.4", "fr": 30, "ip": 0, "op": frames, "w": size, "h": size, "nm": name, "ddd": 0,
            "assets": [], "layers": [ring(1, 0), ring(2, 12)]}


# ---------------------------------------------------------------------------------------------------
# The skins.


def lantern(c, s, body, band, glow=None):
    if glow:
        c.circle(0.5 * s, 0.55 * s, 0.45 * s, glow)
    c.rect(0.47 * s, 0.04 * s, 0.06 * s, 0.12 * s, band)
    c.rect(0.32 * s, 0.14 * s, 0.36 * s, 0.08 * s, band)
    c.ellipse(0.5 * s, 0.5 * s, 0.34 * s, 0.3 * s, body)
    c.rect(0.32 * s, 0.78 * s, 0.36 * s, 0.08 * s, band)
    c.line(0.5 * s, 0.86 * s, 0.5 * s, 0.98 * s, 0.05 * s, band)


def firecracker(c, s, body, band):
    for i, x in enumerate((0.3, 0.5, 0.7)):
        top = 0.18 + 0.06 * (i % 2)
        c.rect((x - 0.08) * s, top * s, 0.16 * s, 0.62 * s, body)
        c.rect((x - 0.08) * s, (top + 0.08) * s, 0.16 * s, 0.05 * s, band)
        c.line(x * s, top * s, (x + 0.05) * s, (top - 0.12) * s, 0.03 * s, band)


def tree(c, s, green, star, ornament):
    c.polygon([(0.5 * s, 0.12 * s), (0.8 * s, 0.5 * s), (0.2 * s, 0.5 * s)], green)
    c.polygon([(0.5 * s, 0.3 * s), (0.88 * s, 0.8 * s), (0.12 * s, 0.8 * s)], green)
    c.rect(0.44 * s, 0.8 * s, 0.12 * s, 0.14 * s, hex_color("6B4226"))
    c.star(0.5 * s, 0.13 * s, 0.1 * s, 0.045 * s, star)
    for x, y in ((0.4, 0.45), (0.62, 0.6), (0.36, 0.7), (0.55, 0.74)):
        c.circle(x * s, y * s, 0.04 * s, ornament)


def gift(c, s, box, ribbon):
    c.rect(0.18 * s, 0.38 * s, 0.64 * s, 0.52 * s, box)
    c.rect(0.14 * s, 0.3 * s, 0.72 * s, 0.14 * s, box)
    c.rect(0.45 * s, 0.3 * s, 0.1 * s, 0.6 * s, ribbon)
    c.ellipse(0.4 * s, 0.24 * s, 0.1 * s, 0.07 * s, ribbon)
    c.ellipse(0.6 * s, 0.24 * s, 0.1 * s, 0.07 * s, ribbon)


def bag(c, s, body, handle, mark):
    c.line(0.36 * s, 0.34 * s, 0.4 * s, 0.14 * s, 0.06 * s, handle)
    c.line(0.4 * s, 0.14 * s, 0.6 * s, 0.14 * s, 0.06 * s, handle)
    c.line(0.6 * s, 0.14 * s, 0.64 * s, 0.34 * s, 0.06 * s, handle)
    c.polygon([(0.18 * s, 0.32 * s), (0.82 * s, 0.32 * s), (0.88 * s, 0.92 * s), (0.12 * s, 0.92 * s)], body)
    c.rect(0.38 * s, 0.46 * s, 0.08 * s, 0.34 * s, mark)
    c.rect(0.54 * s, 0.46 * s, 0.08 * s, 0.34 * s, mark)


def coupon(c, s, body, mark):
    c.rect(0.1 * s, 0.28 * s, 0.8 * s, 0.44 * s, body)
    c.circle(0.1 * s, 0.5 * s, 0.08 * s, (1, 1, 1, 1))
    c.circle(0.9 * s, 0.5 * s, 0.08 * s, (1, 1, 1, 1))
    c.line(0.62 * s, 0.32 * s, 0.62 * s, 0.68 * s, 0.03 * s, mark)
    c.circle(0.38 * s, 0.5 * s, 0.1 * s, mark)


def icon_set(folder, name, draw, scales=(1, 2, 3), base=28):
    written = []
    for scale in scales:
        size = base * scale
        canvas = Canvas(size, size)
        draw(canvas, size)
        suffix = "" if scale == 1 else "@%dx" % scale
        path = os.path.join(folder, name + suffix + ".png")
        write(path, png_bytes(canvas))
        written.append(path)
    return written


def banner(folder, name, top, bottom, decorate, scales=(2, 3), width=375, height=120):
    for scale in scales:
        canvas = Canvas(width * scale, height * scale)
        canvas.vertical_gradient(top, bottom)
        decorate(canvas, width * scale, height * scale, scale)
        write(os.path.join(folder, "%s@%dx.png" % (name, scale)), png_bytes(canvas))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


def write_json(path, value, compact=False):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) if compact else \
        json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    write(path, text.encode("utf-8"))


RED, GOLD, CREAM = hex_color("D7000F"), hex_color("FFD23F"), hex_color("FFF5E1")
GREEN, XRED, SNOW = hex_color("165B33"), hex_color("BB2528"), hex_color("F8F8F8")
ORANGE, PINK, WHITE = hex_color("FF5000"), hex_color("FF2E63"), (1, 1, 1, 1)


def spring_festival(root):
    folder = os.path.join(root, "spring-festival-2027")
    write_json(os.path.join(folder, "skin.json"), {
        "id": "spring-festival-2027",
        "title": "Spring Festival 2027",
        "app": "demo",
        "description": "Year of the Goat: red and gold lanterns on the home tab bar and banner (Ziroom-style modules).",
        "release": {
            # Every year: from 7 days before the Chinese New Year (2027-02-06) to 15 days after it.
            "recurs": {"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": -7, "endOffsetDays": 15},
            "timeZone": "Asia/Shanghai",
            "priority": 10, "platforms": ["ios", "android", "harmony"], "minAppVersion": "7.0.0",
            "maxAppVersion": None, "rollout": 100,
        },
    })
    write_json(os.path.join(folder, "config.json"), {
        "home_navi": {
            "colors": {"color_background": "#D7000F", "color_title": "FFD23F", "color_shadow": "rgba<120,0,8,0.35>"},
            "images": {"image_logo": "images/nav_logo", "image_banner": "file://images/banner.png"},
            "values": {"value_title": "新春快乐", "value_show_banner": True},
        },
        "home_tabbar": {
            "colors": {
                "color_background": "0xFFF5E1",
                "color_button_normal": "hex<8C1C13 0.9>",
                "color_button_selected": "#D7000F",
                "color_divider": "rgba<254,220,189,0.9>",
            },
            "images": {
                "image_one_button_normal": "tab_home.png",
                "image_one_button_selected": {"name": "tab_home_selected"},
                "image_two_button_normal": "tab_discover",
                "image_two_button_selected": {"file": "tab_discover_selected.png"},
                "image_background": {"color": "FFF5E1"},
            },
            "values": {"value_one_button": "首页", "value_two_button": "发现"},
        },
        "loading": {
            "resources": {"resource_refreshImage": "anim/lantern.gif", "resource_fireworks": "anim/fireworks.json"},
            "values": {"value_refresh_text": "福气加载中…"},
        },
    })
    icon_set(folder, "tab_home", lambda c, s: lantern(c, s, hex_color("8C1C13"), hex_color("B8860B")))
    icon_set(folder, "tab_home_selected", lambda c, s: lantern(c, s, RED, GOLD, hex_color("FFD23F", 0.35)))
    icon_set(folder, "tab_discover", lambda c, s: firecracker(c, s, hex_color("8C1C13"), hex_color("B8860B")))
    icon_set(folder, "tab_discover_selected", lambda c, s: firecracker(c, s, RED, GOLD))
    icon_set(os.path.join(folder, "images"), "nav_logo",
             lambda c, s: (c.circle(s / 2, s / 2, 0.46 * s, GOLD), c.star(s / 2, s / 2, 0.36 * s, 0.15 * s, RED)),
             scales=(2, 3), base=32)

    def decorate(c, w, h, scale):
        for i, x in enumerate((0.12, 0.3, 0.7, 0.88)):
            size = h * (0.62 if i % 3 == 0 else 0.5)
            offset = (h - size) * (0.2 if i % 2 else 0.05)
            sub = Canvas(int(size), int(size))
            lantern(sub, size, RED, GOLD, hex_color("FFD23F", 0.25))
            paste(c, sub, int(x * w - size / 2), int(offset))
        # A gold coin with a square hole, the lucky-money motif.
        c.circle(0.5 * w, 0.5 * h, 0.32 * h, GOLD)
        c.circle(0.5 * w, 0.5 * h, 0.25 * h, hex_color("E8A317"))
        c.rect(0.5 * w - 0.09 * h, 0.41 * h, 0.18 * h, 0.18 * h, hex_color("B5121B"))

    banner(os.path.join(folder, "images"), "banner", hex_color("E4202B"), hex_color("9E0A10"), decorate)

    def lantern_frame(c, index):
        angle = math.sin(index / 8 * 2 * math.pi) * 0.12
        sub = Canvas(48, 48)
        lantern(sub, 48, RED, GOLD)
        rotate_paste(c, sub, angle)

    palette = [(0, 0, 0), (215, 0, 15), (255, 210, 63), (140, 28, 19)]
    write(os.path.join(folder, "anim", "lantern.gif"),
          gif_bytes(palette_frames(48, 8, lantern_frame, palette), palette, delay_cs=10))
    write_json(os.path.join(folder, "anim", "fireworks.json"), lottie_burst("fireworks", [1, 0.82, 0.25]), compact=True)


def christmas(root):
    folder = os.path.join(root, "christmas-2026")
    write_json(os.path.join(folder, "skin.json"), {
        "id": "christmas-2026",
        "title": "Christmas 2026",
        "app": "demo",
        "description": "Trees, gifts and snow, with a dark-mode variant (AUUTheme-style image objects).",
        "release": {
            # Every year: from 20 to 27 December.
            "recurs": {"calendar": "gregorian", "month": 12, "day": 25, "startOffsetDays": -5, "endOffsetDays": 2},
            "timeZone": "Asia/Shanghai",
            "priority": 5, "platforms": ["ios", "android"], "minAppVersion": "6.5", "maxAppVersion": None,
            "rollout": 100,
        },
    })
    write_json(os.path.join(folder, "config.json"), {
        "home_navi": {
            "colors": {"color_background": "#165B33FF", "color_title": "fff", "color_snow": "F8F8F8 0.8"},
            "images": {
                "image_logo": {"type": 0, "name": "xmas/star"},
                "image_banner": {"type": 1, "name": "xmas/banner.png"},
                "image_promo": {"type": 3, "path": "https://cdn.example.com/demo/xmas-promo.png"},
            },
            "values": {"value_title": "Merry Christmas", "value_snowfall": {"flakes": 40, "speed": 1.5}},
        },
        "home_tabbar": {
            "colors": {
                "color_background": "#F8F8F8",
                "color_button_normal": "rgba<22,91,51>",
                "color_button_selected": "#BB2528",
            },
            "images": {
                "image_one_button_normal": "xmas/tab_tree",
                "image_one_button_selected": "xmas/tab_tree_selected.png",
                "image_two_button_normal": {"type": 0, "name": "xmas/tab_gift"},
                "image_two_button_selected": {"type": 0, "name": "xmas/tab_gift_selected"},
                "image_background": {"type": 2, "color": "F8F8F8", "note": "AUUTheme lets themes keep their own keys"},
            },
            "values": {"value_one_button": "Home", "value_two_button": "Gifts"},
        },
        "loading": {
            "resources": {"resource_refreshImage": "xmas/snow.gif"},
        },
        "dark": {
            "home_navi": {
                "colors": {"color_background": "#0B2E1A", "color_title": "hex<F8F8F8 0.9>"},
                "images": {"image_banner": {"type": 1, "name": "xmas/banner_dark.png"}},
            },
            "home_tabbar": {
                "colors": {"color_background": "#1C1C1E", "color_button_normal": "rgba<120,180,140,0.9>"},
                "images": {"image_background": {"type": 2, "color": "1C1C1E"}},
            },
        },
    })
    sub = os.path.join(folder, "xmas")
    icon_set(sub, "tab_tree", lambda c, s: tree(c, s, hex_color("4F7D5C"), hex_color("C9B458"), hex_color("9A6B6B")))
    icon_set(sub, "tab_tree_selected", lambda c, s: tree(c, s, GREEN, GOLD, XRED))
    icon_set(sub, "tab_gift", lambda c, s: gift(c, s, hex_color("9A6B6B"), hex_color("C9B458")))
    icon_set(sub, "tab_gift_selected", lambda c, s: gift(c, s, XRED, GOLD))
    icon_set(sub, "star", lambda c, s: c.star(s / 2, s / 2, 0.48 * s, 0.2 * s, GOLD), scales=(2, 3), base=32)

    def decorate(light):
        def draw(c, w, h, scale):
            flake = SNOW if light else hex_color("DDE7F0", 0.7)
            for i in range(14):
                x = (i * 0.37 % 1) * w
                y = ((i * 0.61 + 0.1) % 1) * h
                c.snowflake(x, y, (3 + i % 3) * scale, 1.2 * scale, flake)
            for x, size in ((0.2, 0.8), (0.8, 0.7)):
                sub = Canvas(int(h * size), int(h * size))
                tree(sub, h * size, GREEN if light else hex_color("2E6B45"), GOLD, XRED)
                paste(c, sub, int(x * w - h * size / 2), int(h - h * size))
        return draw

    banner(sub, "banner", hex_color("2A7F4F"), hex_color("165B33"), decorate(True))
    banner(sub, "banner_dark", hex_color("10241A"), hex_color("05100A"), decorate(False))

    def snow_frame(c, index):
        for i in range(6):
            x = (i * 0.29 + 0.07) % 1 * 40 + 4
            y = ((i * 0.41 + index / 8) % 1) * 48
            c.snowflake(x, y, 4, 1.3, SNOW)

    palette = [(0, 0, 0), (248, 248, 248), (200, 214, 228)]
    write(os.path.join(sub, "snow.gif"), gif_bytes(palette_frames(48, 8, snow_frame, palette), palette, delay_cs=12))


def double_eleven(root):
    folder = os.path.join(root, "double-11-2026")
    write_json(os.path.join(folder, "skin.json"), {
        "id": "double-11-2026",
        "title": "Double 11 Shopping Festival 2026",
        "app": "demo",
        "description": "Orange shopping-festival look; dotted identifiers with __default__ show the fallback chain.",
        "release": {
            "startsAt": "2026-11-01T00:00:00+08:00", "endsAt": "2026-11-12T00:00:00+08:00",
            "priority": 8, "platforms": ["ios", "android", "harmony"], "minAppVersion": "7.2",
            "maxAppVersion": "99", "rollout": 100,
        },
    })
    write_json(os.path.join(folder, "config.json"), {
        "home": {
            "colors": {
                "__default__": "#FF5000",
                "color": "333333",
                "color.background": "#FFF7F2",
                "color.background.tableview": "0xFFFFFF",
                "color.text": "#333",
                "color.text.highlighted": "hex<FF2E63>",
                "color.text.subtitle": "666666 0.8",
            },
            "images": {
                "image.banner": "promo/banner",
                "image.tab.home": "promo/tab_bag.png",
                "image.tab.home.selected": "promo/tab_bag_selected",
                "image.tab.coupon": {"name": "promo/tab_coupon"},
                "image.tab.coupon.selected": "file://promo/tab_coupon_selected.png",
                "image.background.navbar": {"type": 2, "color": "FF5000"},
            },
            "values": {"value.countdown.ends": "2026-11-11T23:59:59+08:00", "value.discount": 0.85},
        },
        "loading": {
            "resources": {"resource.spinner": "promo/spinner.gif", "resource.confetti": "promo/confetti.json"},
        },
    })
    sub = os.path.join(folder, "promo")
    icon_set(sub, "tab_bag", lambda c, s: bag(c, s, hex_color("A0A0A0"), hex_color("707070"), WHITE))
    icon_set(sub, "tab_bag_selected", lambda c, s: bag(c, s, ORANGE, hex_color("B33800"), WHITE))
    icon_set(sub, "tab_coupon", lambda c, s: coupon(c, s, hex_color("A0A0A0"), WHITE))
    icon_set(sub, "tab_coupon_selected", lambda c, s: coupon(c, s, PINK, WHITE))

    def decorate(c, w, h, scale):
        # "11" as two bold bars, plus confetti dots.
        c.rect(0.42 * w, 0.18 * h, 0.05 * w, 0.64 * h, WHITE)
        c.rect(0.53 * w, 0.18 * h, 0.05 * w, 0.64 * h, WHITE)
        for i in range(18):
            x = (i * 0.53 % 1) * w
            y = ((i * 0.29 + 0.05) % 1) * h
            c.circle(x, y, (2 + i % 3) * scale, hex_color(("FFD23F", "FFFFFF", "FF2E63")[i % 3], 0.9))

    banner(sub, "banner", ORANGE, PINK, decorate)

    def spinner_frame(c, index):
        for i in range(8):
            angle = (i / 8) * 2 * math.pi
            color = ORANGE if i == index else hex_color("FFC9A8")
            c.circle(24 + 15 * math.cos(angle), 24 + 15 * math.sin(angle), 4.5, color)

    palette = [(0, 0, 0), (255, 80, 0), (255, 201, 168)]
    write(os.path.join(sub, "spinner.gif"), gif_bytes(palette_frames(48, 8, spinner_frame, palette), palette, delay_cs=8))
    write_json(os.path.join(sub, "confetti.json"), lottie_burst("confetti", [1, 0.31, 0]), compact=True)


def paste(target, source, ox, oy):
    for y in range(source.height):
        for x in range(source.width):
            r, g, b, a = source.pixels[y * source.width + x]
            target.blend(ox + x, oy + y, (r, g, b, 1), a)


def rotate_paste(target, source, angle):
    cx, cy = source.width / 2, 2.0  # swing from the top
    cos_a, sin_a = math.cos(-angle), math.sin(-angle)
    for y in range(target.height):
        for x in range(target.width):
            dx, dy = x + 0.5 - cx, y + 0.5 - cy
            sx, sy = cx + dx * cos_a - dy * sin_a, cy + dx * sin_a + dy * cos_a
            ix, iy = int(sx), int(sy)
            if 0 <= ix < source.width and 0 <= iy < source.height:
                r, g, b, a = source.pixels[iy * source.width + ix]
                target.blend(x, y, (r, g, b, 1), a)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="folder to write the skins into (default: skins/)")
    arguments = parser.parse_args()
    for make in (spring_festival, christmas, double_eleven):
        make(arguments.out)
    write_json(os.path.join(arguments.out, "tools", "demo-base-config.json"), {
        "home_navi": {
            "colors": {"color_background": "#FFFFFF", "color_title": "#333333", "color_shadow": "#00000022"},
            "images": {"image_logo": "nav_logo", "image_banner": "banner_default"},
            "values": {"value_title": "Demo", "value_show_banner": False},
        },
        "home_tabbar": {
            "colors": {"color_background": "#F9F9F9", "color_button_normal": "#999999",
                       "color_button_selected": "#444444", "color_divider": "#E5E5E5", "color_badge": "#FF3B30"},
            "images": {"image_one_button_normal": "tab_home", "image_one_button_selected": "tab_home_selected",
                       "image_two_button_normal": "tab_discover", "image_two_button_selected": "tab_discover_selected",
                       "image_background": {"color": "F9F9F9"}},
            "values": {"value_one_button": "Home", "value_two_button": "Discover"},
        },
        "loading": {
            "resources": {"resource_refreshImage": "refresh.gif", "resource_fireworks": "fireworks.json"},
            "values": {"value_refresh_text": "Loading…"},
        },
    })


if __name__ == "__main__":
    main()
