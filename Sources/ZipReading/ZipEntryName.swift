/// The name of a file inside a zip archive, checked once so the rest of the code can trust it.
///
/// Invariants (every value satisfies all of them):
/// - valid UTF-8, between 1 and 65,535 bytes;
/// - relative and `/`-separated: no leading `/`, no backslash, no drive letter (`C:`) in the first segment;
/// - no empty segments (`a//b`, a trailing `/`), no `.` or `..` segments;
/// - no NUL or other control characters (U+0000–U+001F, U+007F–U+009F).
///
/// Equality, hashing and ordering are by UTF-8 bytes, which is the order the writer puts entries in.
public struct ZipEntryName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The largest name a zip header can hold (the name length field is 16 bits).
    public static let maximumByteCount = 65_535

    /// The name as a string, exactly as given.
    public let rawValue: String

    /// The name's UTF-8 bytes, as stored in the archive.
    public let utf8Bytes: [UInt8]

    /// Checks raw name bytes (read from an archive, or a name's UTF-8) and wraps them.
    ///
    /// - Throws: `ZipEntryName.Violation`, the first rule the name breaks (the reader maps it to `ZipReadError`;
    ///   the writer's `ZipEntryName(_:)`, in ZipArchive, to `ZipError`).
    public init(validating bytes: [UInt8]) throws(Violation) {
        if let violation = Self.violation(in: bytes) { throw violation }
        // `violation(in:)` has proved the bytes are valid UTF-8, so decoding is lossless.
        self.rawValue = String(decoding: bytes, as: UTF8.self)
        self.utf8Bytes = bytes
    }

    /// The path segments, in order (`"images/tab_home@2x.png"` → `["images", "tab_home@2x.png"]`).
    public var segments: [Substring] {
        rawValue.split(separator: "/", omittingEmptySubsequences: false)
    }

    public var description: String { rawValue }

    public static func < (lhs: ZipEntryName, rhs: ZipEntryName) -> Bool {
        lhs.utf8Bytes.lexicographicallyPrecedes(rhs.utf8Bytes)
    }

    public static func == (lhs: ZipEntryName, rhs: ZipEntryName) -> Bool {
        lhs.utf8Bytes == rhs.utf8Bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(utf8Bytes)
    }

    /// Which rule a rejected name breaks.
    public enum Violation: Error, Equatable, Sendable {
        /// The name has no bytes.
        case empty
        /// The name is longer than 65,535 UTF-8 bytes.
        case tooLong
        /// The bytes are not valid UTF-8.
        case notUTF8
        /// The name starts with `/`.
        case absolute
        /// The name contains `\`, which Windows tools treat as a separator.
        case backslash
        /// The first segment is a drive letter such as `C:`.
        case driveLetter
        /// A `..` segment, which could climb out of the extraction folder.
        case parentSegment
        /// A `.` segment.
        case currentSegment
        /// Two consecutive `/`, or a trailing `/`.
        case emptySegment
        /// NUL or another control character.
        case controlCharacter

        /// True for the rules whose breach could write outside the destination folder ("zip slip").
        public var escapesDestination: Bool {
            switch self {
            case .absolute, .backslash, .driveLetter, .parentSegment: true
            case .empty, .tooLong, .notUTF8, .currentSegment, .emptySegment, .controlCharacter: false
            }
        }

        /// A sentence for humans; it never quotes the name.
        public var explanation: String {
            switch self {
            case .empty: "the name is empty"
            case .tooLong: "the name is longer than 65,535 bytes"
            case .notUTF8: "the name is not valid UTF-8"
            case .absolute: "the name is an absolute path"
            case .backslash: "the name contains a backslash"
            case .driveLetter: "the name starts with a drive letter"
            case .parentSegment: "the name contains a '..' segment"
            case .currentSegment: "the name contains a '.' segment"
            case .emptySegment: "the name contains an empty segment"
            case .controlCharacter: "the name contains a control character"
            }
        }
    }

    /// The first rule `bytes` breaks, or nil if it is a valid name. Path-escape rules are checked first, so a
    /// name that is both (say, `../a\u{0}`) is reported as the more dangerous one.
    package static func violation(in bytes: [UInt8]) -> Violation? {
        if bytes.isEmpty { return .empty }
        if bytes.count > maximumByteCount { return .tooLong }
        let slash = UInt8(ascii: "/")
        if bytes[0] == slash { return .absolute }
        if bytes.contains(UInt8(ascii: "\\")) { return .backslash }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"), isASCIILetter(bytes[0]) { return .driveLetter }
        var sawCurrent = false
        var sawEmpty = false
        var segmentStart = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == slash {
            let length = index - segmentStart
            if length == 0 {
                sawEmpty = true
            } else if length == 1, bytes[segmentStart] == UInt8(ascii: ".") {
                sawCurrent = true
            } else if length == 2, bytes[segmentStart] == UInt8(ascii: "."),
                bytes[segmentStart + 1] == UInt8(ascii: ".")
            {
                return .parentSegment
            }
            segmentStart = index + 1
        }
        // Valid UTF-8 decodes and re-encodes to the same bytes; anything else gets U+FFFD somewhere. (Not
        // `String(validating:as:)`, which needs iOS 18 / macOS 15: this target builds for iOS 15.)
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else { return .notUTF8 }
        // C0 controls, DEL and the C1 controls (U+0080–U+009F) all have general category Cc.
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .controlCharacter
        }
        if sawCurrent { return .currentSegment }
        if sawEmpty { return .emptySegment }
        return nil
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
