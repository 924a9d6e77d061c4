// Livery console: the colour spellings of config.json (docs/SKINS.md, "config.json" → colors), parsed for swatches.
// Mirrors SkinModel's SkinColor: #RRGGBB, RRGGBB, 0xRRGGBB, #RRGGBBAA, RGB / #RGB, "RRGGBB 0.9" (also after # or
// 0x), rgba<r,g,b,a>, rgba<r,g,b>, hex<RRGGBB a>, hex<RRGGBB>. Returns {r, g, b, a} or null.
"use strict";
(function (root) {
  var HEX = /^[0-9A-Fa-f]+$/;

  function hexDigits(digits, allowAlpha, allowShort) {
    if (!HEX.test(digits)) return null;
    var n = function (i, w) { return parseInt(digits.substr(i, w), 16); };
    if (digits.length === 3 && allowShort) return { r: n(0, 1) * 17, g: n(1, 1) * 17, b: n(2, 1) * 17, a: 1 };
    if (digits.length === 6) return { r: n(0, 2), g: n(2, 2), b: n(4, 2), a: 1 };
    if (digits.length === 8 && allowAlpha) return { r: n(0, 2), g: n(2, 2), b: n(4, 2), a: n(6, 2) / 255 };
    return null;
  }

  function alpha(text) {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) return null;
    var value = parseFloat(text);
    return value >= 0 && value <= 1 ? value : null;
  }

  function channel(text) {
    if (!/^[0-9]{1,3}$/.test(text)) return null;
    var value = parseInt(text, 10);
    return value <= 255 ? value : null;
  }

  function hexWithOptionalAlpha(text, prefixes) {
    var pieces = text.split(" ");
    if (pieces.length !== 1 && pieces.length !== 2) return null;
    for (var i = 0; i < prefixes.length; i++) {
      var prefix = prefixes[i];
      if (pieces[0].indexOf(prefix) !== 0) continue;
      var digits = pieces[0].slice(prefix.length);
      var color = digits.length === 6 ? hexDigits(digits, false, false) : null;
      if (!color) continue;
      if (pieces.length === 2) {
        var a = alpha(pieces[1]);
        if (a === null) return null;
        color.a = a;
      }
      return color;
    }
    return null;
  }

  function unwrap(text, prefix) {
    if (text.indexOf(prefix) !== 0 || text.charAt(text.length - 1) !== ">" || text.length <= prefix.length) return null;
    return text.slice(prefix.length, -1);
  }

  function parse(text) {
    if (typeof text !== "string") return null;
    var inner = unwrap(text, "rgba<");
    if (inner !== null) {
      var parts = inner.split(",");
      if (parts.length !== 3 && parts.length !== 4) return null;
      var r = channel(parts[0]), g = channel(parts[1]), b = channel(parts[2]);
      if (r === null || g === null || b === null) return null;
      var a = 1;
      if (parts.length === 4) {
        a = alpha(parts[3]);
        if (a === null) return null;
      }
      return { r: r, g: g, b: b, a: a };
    }
    inner = unwrap(text, "hex<");
    if (inner !== null) return hexWithOptionalAlpha(inner, [""]);
    var color = hexWithOptionalAlpha(text, ["#", "0x", "0X", ""]);
    if (color) return color;
    if (text.charAt(0) === "#") {
      color = hexDigits(text.slice(1), true, true);
      if (color) return color;
    }
    return hexDigits(text, false, true);
  }

  // A CSS colour for a parsed colour (rgba(), so the alpha shows on the checkerboard behind a swatch).
  function css(color) {
    return "rgba(" + color.r + "," + color.g + "," + color.b + "," + Math.round(color.a * 1000) / 1000 + ")";
  }

  // Perceived brightness 0..1, to pick readable text over a colour.
  function luminance(color) {
    return (0.299 * color.r + 0.587 * color.g + 0.114 * color.b) / 255;
  }

  root.LiveryColor = { parse: parse, css: css, luminance: luminance };
})(window);
