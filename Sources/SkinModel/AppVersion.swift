/// An app version of 1 to 4 dot-separated decimal numbers (`7`, `7.0`, `7.10.2`, `7.0.0.1234`).
///
/// Missing trailing parts count as zero, so `7.0 == 7.0.0` (equality and hashing use the normalized parts);
/// comparison is numeric part by part, so `7.10 > 7.9`. Each part has at most 9 digits.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// The four parts (missing ones are 0), 30 bits each, most significant first: `high` holds the first two,
    /// `low` the last two. Comparing (high, low) compares versions; trailing zeros change nothing, so equal keys
    /// mean equal versions ("7.1" == "7.1.0"). Packed so that parsing a poll's version allocates nothing.
    private let high: UInt64
    private let low: UInt64
    /// How many parts were written (1 to 4).
    private let count: UInt8

    /// Parses `text`; `nil` unless it is 1 to 4 dot-separated runs of 1 to 9 ASCII digits.
    public init?(_ text: String) {
        // One pass over the UTF-8 bytes (this runs on every poll): dotted groups of 1–9 ASCII digits, 1–4 groups.
        var packed: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        var current: UInt64 = 0
        var digits = 0
        func store(_ value: UInt64, at position: Int) {
            switch position {
            case 0: packed.0 = value
            case 1: packed.1 = value
            case 2: packed.2 = value
            default: packed.3 = value
            }
        }
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, count < 3 else { return nil }
                store(current, at: count)
                count += 1
                current = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 9 {
                current = current * 10 + UInt64(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        store(current, at: count)
        count += 1
        self.high = packed.0 << 30 | packed.1
        self.low = packed.2 << 30 | packed.3
        self.count = UInt8(count)
        self.text = text
    }

    /// The parts as written (1 to 4 of them).
    public var parts: [Int] {
        let all = [high >> 30, high & Self.partMask, low >> 30, low & Self.partMask]
        return all.prefix(Int(count)).map { Int($0) }
    }

    private static let partMask: UInt64 = (1 << 30) - 1

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.high == rhs.high && lhs.low == rhs.low }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    public var description: String { text }
}
