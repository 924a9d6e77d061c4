import LiveryJSON

/// Accumulates issues for one file while a parser walks it, so parsers read as a list of checks.
struct IssueCollector {
    let file: String?
    private(set) var issues: [ValidationIssue] = []

    init(file: String?) { self.file = file }

    var hasErrors: Bool { issues.contains { $0.severity == .error } }

    mutating func error(
        _ code: ValidationIssue.Code, _ pointer: JSONPointer, value: JSONValue? = nil, _ message: String, fix: String
    ) {
        issues.append(
            ValidationIssue(
                severity: .error, code: code, file: file, pointer: pointer.description, value: value, message: message,
                fix: fix))
    }

    mutating func warning(
        _ code: ValidationIssue.Code, _ pointer: JSONPointer, value: JSONValue? = nil, _ message: String, fix: String
    ) {
        issues.append(
            ValidationIssue(
                severity: .warning, code: code, file: file, pointer: pointer.description, value: value,
                message: message, fix: fix))
    }

    mutating func append(contentsOf other: [ValidationIssue]) { issues.append(contentsOf: other) }

    /// The issue for a JSON parse failure of this collector's file.
    mutating func parseFailure(_ failure: JSONParseError) {
        issues.append(ValidationIssue.jsonParseFailure(failure, file: file))
    }
}

extension ValidationIssue {
    /// The error for `failure` in `file`, with its line and column.
    static func jsonParseFailure(_ failure: JSONParseError, file: String?) -> ValidationIssue {
        let name = file ?? "the JSON"
        let (code, fix): (Code, String) =
            switch failure.kind {
            case .syntax:
                (
                    .jsonSyntax,
                    "Fix \(name) at line \(failure.line), column \(failure.column) so it is strict JSON (no comments, trailing commas or single quotes)."
                )
            case .duplicateKey:
                (.jsonDuplicateKey, "Keep one of the two keys in \(name); apps disagree on which duplicate wins.")
            case .invalidUTF8: (.jsonEncoding, "Save \(name) as UTF-8.")
            case .tooDeep:
                (
                    .jsonTooDeep,
                    "Flatten \(name): nest arrays and objects at most \(JSONParser.maximumDepth) levels deep."
                )
            }
        return ValidationIssue(
            severity: .error, code: code, file: file, pointer: "", value: nil,
            message: "\(name) is not valid JSON: line \(failure.line), column \(failure.column): \(failure.message).",
            fix: fix, line: failure.line, column: failure.column)
    }
}
