import LiveryJSON

/// A parsed color: 8-bit red, green, blue and an alpha from 0 to 1.
///
/// Built from any of the spellings skins use (see ``init(parsing:)``); the original spelling stays in
/// `config.json` untouched, so each app keeps reading what its own parser understands.
public struct SkinColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// Opacity from 0 (transparent) to 1 (opaque).
    public var alpha: Double

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// The accepted spellings, as shown in fixes and docs/SKINS.md.
    public static let acceptedSpellings =
        "#RRGGBB, RRGGBB, 0xRRGGBB, #RRGGBBAA, RGB or #RGB, \"RRGGBB 0.9\", rgba<254,220,189,0.9>, rgba<254,220,189>, hex<B2D235 0.9> or hex<B2D235>"

    /// Parses one of the accepted spellings; `nil` for anything else.
    ///
    /// - `#RRGGBB`, `RRGGBB`, `0xRRGGBB` (hex digits in either case)
    /// - `#RRGGBBAA` (CSS order: alpha last; Android's `#AARRGGBB` must be rewritten)
    /// - `RGB` / `#RGB` shorthand (each digit doubled)
    /// - `RRGGBB 0.9` (one space, then an alpha from 0 to 1; also after `#RRGGBB` or `0xRRGGBB`)
    /// - `rgba<254,220,189,0.9>`, `rgba<254,220,189>` (decimal 0–255 channels, no spaces)
    /// - `hex<B2D235 0.9>`, `hex<B2D235>`
    public init?(parsing text: String) {
        if let inner = SkinColor.unwrap(text, prefix: "rgba<") {
            let parts = inner.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 || parts.count == 4,
                let red = SkinColor.channel(parts[0]), let green = SkinColor.channel(parts[1]),
                let blue = SkinColor.channel(parts[2])
            else { return nil }
            var alpha = 1.0
            if parts.count == 4 {
                guard let parsed = SkinColor.alpha(parts[3]) else { return nil }
                alpha = parsed
            }
            self.init(red: red, green: green, blue: blue, alpha: alpha)
            return
        }
        if let inner = SkinColor.unwrap(text, prefix: "hex<") {
            guard let color = SkinColor.hexWithOptionalAlpha(inner, prefixes: [""]) else { return nil }
            self = color
            return
        }
        if let color = SkinColor.hexWithOptionalAlpha(text, prefixes: ["#", "0x", "0X", ""]) {
            self = color
            return
        }
        if text.hasPrefix("#"),
            let color = SkinColor.hexDigits(String(text.dropFirst()), allowAlpha: true, allowShort: true)
        {
            self = color
            return
        }
        if let color = SkinColor.hexDigits(text, allowAlpha: false, allowShort: true) {
            self = color
            return
        }
        return nil
    }

    /// `#RRGGBBAA` in uppercase hex with alpha rounded to 8 bits.
    public var description: String {
        let alphaByte = alpha.isNaN ? 0 : UInt8((max(0, min(1, alpha)) * 255).rounded())
        return "#" + hex2(red) + hex2(green) + hex2(blue) + hex2(alphaByte)
    }

    // MARK: Spelling pieces

    private static func unwrap(_ text: String, prefix: String) -> String? {
        guard text.hasPrefix(prefix), text.hasSuffix(">"), text.count > prefix.count else { return nil }
        return String(text.dropFirst(prefix.count).dropLast())
    }

    /// `RRGGBB` or `RRGGBB A` after one of `prefixes`.
    private static func hexWithOptionalAlpha(_ text: String, prefixes: [String]) -> SkinColor? {
        let pieces = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count == 1 || pieces.count == 2 else { return nil }
        for prefix in prefixes where pieces[0].hasPrefix(prefix) {
            let digits = String(pieces[0].dropFirst(prefix.count))
            guard digits.utf8.count == 6, var color = hexDigits(digits, allowAlpha: false, allowShort: false) else {
                continue
            }
            if pieces.count == 2 {
                guard let alpha = alpha(pieces[1]) else { return nil }
                color.alpha = alpha
            }
            return color
        }
        return nil
    }

    /// 6 hex digits, or 8 with `allowAlpha`, or 3 with `allowShort`.
    private static func hexDigits(_ digits: String, allowAlpha: Bool, allowShort: Bool) -> SkinColor? {
        let values = digits.utf8.map(hexDigitValue)
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let v = values.compactMap { $0 }
        switch v.count {
        case 3 where allowShort:
            return SkinColor(red: v[0] * 17, green: v[1] * 17, blue: v[2] * 17)
        case 6:
            return SkinColor(red: v[0] << 4 | v[1], green: v[2] << 4 | v[3], blue: v[4] << 4 | v[5])
        case 8 where allowAlpha:
            return SkinColor(
                red: v[0] << 4 | v[1], green: v[2] << 4 | v[3], blue: v[4] << 4 | v[5],
                alpha: Double(v[6] << 4 | v[7]) / 255)
        default:
            return nil
        }
    }

    /// A decimal 0–255 without sign, spaces or leading zeros beyond one digit.
    private static func channel(_ text: String) -> UInt8? {
        guard (1...3).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int(text), value <= 255
        else { return nil }
        return UInt8(value)
    }

    /// A decimal from 0 to 1: digits with an optional fraction (`0`, `1`, `0.9`, `1.0`).
    private static func alpha(_ text: String) -> Double? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count),
            pieces.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let value = Double(text), (0...1).contains(value)
        else { return nil }
        return value
    }
}
