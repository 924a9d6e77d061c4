/// A skin-relative file path, checked once: `/`-separated, non-empty segments, no `.` or `..` segment,
/// not absolute, no backslash and no control character. Safe to join under the skin folder or use as a zip entry name.
public struct AssetPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Why a path was refused.
    public enum Problem: Error, Sendable, Equatable {
        /// The path starts with `/` (or a Windows drive such as `C:`).
        case absolute
        /// A segment is `..`.
        case parentSegment
        /// Empty, an empty or `.` segment, a backslash or a control character.
        case malformed(String)
    }

    /// The checked path text.
    public let rawValue: String

    /// Checks `text`; see the type's rule.
    public init(validating text: String) throws(Problem) {
        if let problem = AssetPath.problem(in: text) { throw problem }
        rawValue = text
    }

    /// The problem with `text`, or `nil` when it is a valid asset path.
    public static func problem(in text: String) -> Problem? {
        if text.isEmpty { return .malformed("the path is empty") }
        if text.hasPrefix("/") { return .absolute }
        let bytes = Array(text.utf8)
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"),
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0] & 0xDF)
        {
            return .absolute
        }
        if text.contains("\\") { return .malformed("it contains a backslash; use '/' between folders") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .malformed("it contains a control character")
        }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains("..") { return .parentSegment }
        if segments.contains(where: \.isEmpty) { return .malformed("it has an empty segment ('//' or a trailing '/')") }
        if segments.contains(".") { return .malformed("it has a '.' segment") }
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
func bytewiseLess(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.lexicographicallyPrecedes(rhs.utf8) }
