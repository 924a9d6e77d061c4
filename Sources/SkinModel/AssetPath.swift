/// A skin-relative file path, checked once: 1 to 65,535 UTF-8 bytes, `/`-separated, non-empty segments,
/// no `.` or `..` segment, not absolute, no backslash and no control character (C0 U+0000–U+001F, DEL U+007F or C1 U+0080–U+009F).
/// Safe to join under the skin folder or use as a zip entry name: every path accepted here is also a valid
/// `ZipEntryName`, so a skin that validates can be packed.
///
/// The rules are checked on the UTF-8 bytes, as the file system and zip readers see them, not on Swift
/// `Character`s: a combining mark after `/` or `\` (one grapheme cluster) cannot hide the separator.
public struct AssetPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Why a path was refused.
    public enum Problem: Error, Sendable, Equatable {
        /// The path starts with `/` (or a Windows drive such as `C:`).
        case absolute
        /// A segment is `..`.
        case parentSegment
        /// Empty, over ``AssetPath/maximumByteCount`` bytes, an empty or `.` segment, a backslash or a control character.
        case malformed(String)
    }

    /// The longest path accepted, in UTF-8 bytes (what a zip entry name can hold).
    public static let maximumByteCount = 65_535

    /// The checked path text.
    public let rawValue: String

    /// Checks `text`; see the type's rule.
    public init(validating text: String) throws(Problem) {
        if let problem = AssetPath.problem(in: text) { throw problem }
        rawValue = text
    }

    /// The problem with `text`, or `nil` when it is a valid asset path. When several rules are broken, the
    /// first of: empty, too long, absolute, backslash, control character, `..` segment, empty segment, `.` segment.
    public static func problem(in text: String) -> Problem? {
        let bytes = text.utf8
        guard let first = bytes.first else { return .malformed("the path is empty") }
        if bytes.count > AssetPath.maximumByteCount { return .malformed("it is longer than 65,535 bytes") }
        if first == UInt8(ascii: "/") { return .absolute }
        var second: UInt8?
        var sawBackslash = false
        var sawControl = false
        var sawParent = false
        var sawEmpty = false
        var sawCurrent = false
        var previous: UInt8 = 0
        // Segment shape so far: its length, capped at 3 (only empty, "." and ".." matter), and whether all dots.
        var segmentLength = 0
        var segmentIsDots = true
        func endSegment() {
            if segmentLength == 0 { sawEmpty = true }
            if segmentIsDots, segmentLength == 1 { sawCurrent = true }
            if segmentIsDots, segmentLength == 2 { sawParent = true }
            segmentLength = 0
            segmentIsDots = true
        }
        var offset = 0
        for byte in bytes {
            if offset == 1 { second = byte }
            offset += 1
            if byte == UInt8(ascii: "\\") { sawBackslash = true }
            // C0 and DEL are single bytes; C1 (U+0080–U+009F) is 0xC2 followed by 0x80–0x9F in UTF-8.
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte <= 0x9F && byte >= 0x80) { sawControl = true }
            previous = byte
            if byte == UInt8(ascii: "/") {
                endSegment()
            } else {
                segmentLength = min(segmentLength + 1, 3)
                if byte != UInt8(ascii: ".") { segmentIsDots = false }
            }
        }
        endSegment()
        if second == UInt8(ascii: ":"), (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first & 0xDF) {
            return .absolute
        }
        if sawBackslash { return .malformed("it contains a backslash; use '/' between folders") }
        if sawControl { return .malformed("it contains a control character") }
        if sawParent { return .parentSegment }
        if sawEmpty { return .malformed("it has an empty segment ('//' or a trailing '/')") }
        if sawCurrent { return .malformed("it has a '.' segment") }
        return nil
    }

    /// The last segment (`tab@2x.png` for `icons/tab@2x.png`).
    public var fileName: Substring {
        guard let slash = rawValue.lastIndex(of: "/") else { return rawValue[...] }
        return rawValue[rawValue.index(after: slash)...]
    }

    /// The extension after the last `.` of the file name, lowercased; `""` when there is none.
    public var lowercasedExtension: String {
        let name = fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    public var description: String { rawValue }

    /// Bytewise UTF-8 order, the order zip entries are written in.
    public static func < (lhs: AssetPath, rhs: AssetPath) -> Bool { bytewiseLess(lhs.rawValue, rhs.rawValue) }
}

/// Orders strings by their UTF-8 bytes (not by Unicode canonical order), which is locale-free and stable.
package func bytewiseLess(_ lhs: String, _ rhs: String) -> Bool {
    // Sorting file lists calls this O(n log n) times: compare the contiguous bytes rather than iterate UTF8Views.
    if let result = lhs.utf8.withContiguousStorageIfAvailable({ left in
        rhs.utf8.withContiguousStorageIfAvailable { right in left.lexicographicallyPrecedes(right) }
    }), let result {
        return result
    }
    return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
}
