/// Why a byte string is not acceptable JSON, and where: 1-based line and column (columns count Unicode scalars,
/// so they match what an editor shows) and the 0-based byte offset.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad reason, so callers can map it to their own error codes.
    public enum Kind: String, Sendable, Equatable {
        /// Anything the JSON grammar does not allow (including empty input, trailing data and a byte order mark).
        case syntax
        /// An object repeats a key; which value wins differs between app parsers, so it is refused.
        case duplicateKey
        /// Bytes that are not valid UTF-8.
        case invalidUTF8
        /// Arrays and objects nested deeper than ``JSONParser/maximumDepth``.
        case tooDeep
    }

    public var kind: Kind
    /// 1-based line number.
    public var line: Int
    /// 1-based column, in Unicode scalars from the start of the line.
    public var column: Int
    /// 0-based byte offset of the problem.
    public var offset: Int
    /// A sentence saying what was expected or found.
    public var message: String

    public init(kind: Kind, line: Int, column: Int, offset: Int, message: String) {
        self.kind = kind
        self.line = line
        self.column = column
        self.offset = offset
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
