import LiveryJSON

/// One problem found in a skin: what (a stable `code`), where (`file` and a JSON `pointer`), the offending
/// `value`, a `message` saying what is wrong and a `fix` sentence saying what to do.
public struct ValidationIssue: Sendable, Equatable, CustomStringConvertible {
    /// Errors make a skin invalid; warnings are reported but do not block it.
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    public var severity: Severity
    /// A stable machine-readable code such as `color.invalid`; see ``Code``.
    public var code: Code
    /// The skin-relative file the issue is about (`config.json`, `images/tab@2x.png`), or `nil` for the skin as a whole.
    public var file: String?
    /// An RFC 6901 pointer into `file` (`/home_tabbar/colors/color_background`); `""` means the whole file.
    public var pointer: String
    /// The offending value, when there is one (a JSON value as written, or a file name as a string).
    public var value: JSONValue?
    /// One sentence: what is wrong, quoting the value.
    public var message: String
    /// One sentence: how to fix it.
    public var fix: String
    /// 1-based line of a JSON syntax error, when known.
    public var line: Int?
    /// 1-based column (in characters) of a JSON syntax error, when known.
    public var column: Int?

    public init(
        severity: Severity, code: Code, file: String?, pointer: String = "", value: JSONValue? = nil,
        message: String, fix: String, line: Int? = nil, column: Int? = nil
    ) {
        self.severity = severity
        self.code = code
        self.file = file
        self.pointer = pointer
        self.value = value
        self.message = message
        self.fix = fix
        self.line = line
        self.column = column
    }

    /// `file#pointer` (or `file:line:column` for syntax errors), the place a reader should look.
    public var location: String {
        var text = file ?? "(skin)"
        if let line, let column { text += ":\(line):\(column)" }
        if !pointer.isEmpty { text += "#" + pointer }
        return text
    }

    public var description: String { "\(severity.rawValue) \(code) \(location): \(message) Fix: \(fix)" }
}
