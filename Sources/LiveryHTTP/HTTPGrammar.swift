/// Character classes and small helpers from RFC 9110 §5.6 and RFC 9112, shared by the parser and the writer.
enum HTTPGrammar {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// `tchar` (RFC 9110 §5.6.2): the characters allowed in a token such as a method or a field name,
    /// `ALPHA / DIGIT / "!#$%&'*+-.^_`|~"`, as bit masks for bytes 0-63 and 64-127. Constants rather than lookup
    /// tables: a global table costs a lazy-initialisation check on every access, i.e. on every byte parsed.
    private static let tokenLow: UInt64 = 0x03ff_6cfa_0000_0000
    private static let tokenHigh: UInt64 = 0x57ff_ffff_c7ff_fffe

    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        byte < 64 ? (tokenLow >> UInt64(byte)) & 1 == 1 : byte < 128 ? (tokenHigh >> UInt64(byte - 64)) & 1 == 1 : false
    }

    /// Characters of `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2): unreserved, pct-encoded,
    /// sub-delims, ":" and the brackets of an IP-literal (`A-Z a-z 0-9 -._~%!$&'()*+,;=:[]`), as bit masks.
    private static let hostLow: UInt64 = 0x2fff_7ff2_0000_0000
    private static let hostHigh: UInt64 = 0x47ff_fffe_afff_fffe

    @inline(__always)
    static func isHostChar(_ byte: UInt8) -> Bool {
        byte < 64 ? (hostLow >> UInt64(byte)) & 1 == 1 : byte < 128 ? (hostHigh >> UInt64(byte - 64)) & 1 == 1 : false
    }

    /// `field-vchar` plus SP and HTAB (RFC 9110 §5.5): VCHAR, obs-text (0x80-0xFF), SP, HTAB.
    /// Everything else, notably NUL, CR, LF and other controls, is invalid in a field value.
    @inline(__always)
    static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == tab
    }

    /// Characters allowed in a request-target (RFC 9112 §3.2, RFC 3986): visible ASCII only.
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// Characters a path, query or fragment may hold literally, besides `%` escapes (RFC 3986 §3.3-3.5: `pchar`,
    /// `/` and `?`): `unreserved` (`A-Z a-z 0-9 -._~`), `sub-delims` (`!$&'()*+,;=`), `:`, `@`, `/` and `?`.
    /// Not: controls, space, `"`, `#`, `%`, `<`, `>`, `[`, `\`, `]`, `^`, `` ` ``, `{`, `|`, `}`, DEL and non-ASCII.
    static func isPathOrQueryChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            true
        default:
            false
        }
    }

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenChar)
    }

    static func isValidFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy(isFieldValueChar)
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// ASCII case-insensitive equality, as field names and most protocol tokens compare.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let x?, let y?): if lowercased(x) != lowercased(y) { return false }
            default: return false
            }
        }
    }

    /// ASCII case-insensitive comparison of raw bytes with a lower-case ASCII literal.
    static func bytes(_ bytes: UnsafeRawBufferPointer, equalLowercase literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        for index in 0..<bytes.count where lowercased(bytes[index]) != expected[index] {
            return false
        }
        return true
    }

    /// ASCII case-insensitive equality of two runs of bytes, as field names compare.
    static func bytes(_ bytes: UnsafeRawBufferPointer, equalIgnoringCase other: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == other.count else { return false }
        for index in 0..<bytes.count where lowercased(bytes[index]) != lowercased(other[index]) {
            return false
        }
        return true
    }

    /// Splits a comma-separated list (RFC 9110 §5.6.1), trimming optional whitespace and dropping empty elements.
    static func listElements(_ value: String) -> [Substring] {
        value.split(separator: ",", omittingEmptySubsequences: true).compactMap { element in
            let trimmed = element.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
            let result = Substring(trimmed.reversed())
            return result.isEmpty ? nil : result
        }
    }
}
