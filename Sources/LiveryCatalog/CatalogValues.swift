import Foundation

/// An app version as the protocol compares it: 1 to 4 dot-separated runs of 1 to 9 ASCII digits; missing trailing
/// parts count as 0 (`7.0 == 7.0.0`), parts compare numerically left to right (`7.10 > 7.9`).
public struct CatalogAppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// Exactly four parts, missing ones 0.
    public let parts: [Int]

    /// nil unless `text` is 1 to 4 dot-separated runs of 1 to 9 ASCII digits.
    public init?(_ text: String) {
        let groups = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(groups.count) else { return nil }
        var parts: [Int] = []
        for group in groups {
            guard (1...9).contains(group.utf8.count), group.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(group)
            else { return nil }
            parts.append(value)
        }
        self.text = text
        self.parts = parts + Array(repeating: 0, count: 4 - parts.count)
    }

    public static func == (lhs: CatalogAppVersion, rhs: CatalogAppVersion) -> Bool { lhs.parts == rhs.parts }
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }
    public static func < (lhs: CatalogAppVersion, rhs: CatalogAppVersion) -> Bool {
        lhs.parts.lexicographicallyPrecedes(rhs.parts)
    }
    public var description: String { text }
}

/// The appearance a package is made for: one of the two, or both in one package.
public enum CatalogAppearance: String, Sendable, Hashable, CaseIterable {
    case light
    case dark
    case any
}

/// A package variant: screen scale 1–3 and appearance. Its `key` names it in a document (`@3x-light`), as the
/// server names variants.
public struct CatalogVariant: Sendable, Hashable, CustomStringConvertible {
    public let scale: Int
    public let appearance: CatalogAppearance

    /// nil unless `scale` is 1, 2 or 3.
    public init?(scale: Int, appearance: CatalogAppearance) {
        guard (1...3).contains(scale) else { return nil }
        self.scale = scale
        self.appearance = appearance
    }

    /// What a poll without `scale` and `appearance` gets: scale 3, light.
    public static let standard = CatalogVariant(uncheckedScale: 3, appearance: .light)

    /// The nine variants, scale-major, then light, dark, any.
    public static let all: [CatalogVariant] = (1...3).flatMap { scale in
        CatalogAppearance.allCases.map { CatalogVariant(uncheckedScale: scale, appearance: $0) }
    }

    private init(uncheckedScale: Int, appearance: CatalogAppearance) {
        scale = uncheckedScale
        self.appearance = appearance
    }

    /// `@<scale>x-<appearance>`, the key of the variant's package in an entry's `packages`.
    public var key: String { "@\(scale)x-\(appearance.rawValue)" }
    public var description: String { key }

    /// The variant a poll's `scale` and `appearance` parameters name, with the poll's defaults: a missing scale is
    /// 3, a missing appearance (or `unspecified`) light; names are matched in any ASCII case. nil for a value the
    /// poll would refuse with 400.
    public static func requested(scale: String?, appearance: String?) -> CatalogVariant? {
        var scaleValue = 3
        if let scale {
            var digits = Substring(scale)
            if digits.first == "+" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let value = digits.utf8.reduce(0) { min($0 * 10 + Int($1 - 0x30), 10) }
            scaleValue = value
        }
        var look = CatalogAppearance.light
        if let appearance {
            let lowered = appearance.lowercased()
            if lowered == "unspecified" {
                look = .light
            } else if let named = CatalogAppearance(rawValue: lowered), lowered.utf8.count == appearance.utf8.count {
                look = named
            } else {
                return nil
            }
        }
        return CatalogVariant(scale: scaleValue, appearance: look)
    }
}

/// UTC instants as the catalog writes them: `YYYY-MM-DDTHH:MM:SS` with optional `.fff` milliseconds and `Z`.
public enum CatalogInstant {
    /// The instant `text` names, or nil unless it has exactly that form (years 0001–9999, a real calendar date).
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 24, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func separator(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue }
        guard separator(4, "-"), separator(7, "-"), separator(10, "T"), separator(13, ":"), separator(16, ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), year >= 1, (1...12).contains(month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var millis = 0
        if bytes.count == 24 {
            guard separator(19, "."), let fraction = number(20..<23) else { return nil }
            millis = fraction
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[month - 1] else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + Double(millis) / 1000
        return Date(timeIntervalSince1970: seconds)
    }
}
