/// A `ParseResult` carries what a parser could build together with the issues it found on the way.
public struct ParseResult<Value: Sendable>: Sendable {
    /// The parsed value; `nil` when any error was found.
    public var value: Value?
    /// Errors and warnings, in document order.
    public var issues: [ValidationIssue]

    public init(value: Value?, issues: [ValidationIssue]) {
        self.value = value
        self.issues = issues
    }

    /// The issues with severity `.error`.
    public var errors: [ValidationIssue] { issues.filter { $0.severity == .error } }
}
