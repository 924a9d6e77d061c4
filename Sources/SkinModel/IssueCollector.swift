/// Accumulates issues for one file while a parser walks it, so parsers read as a list of checks.
struct IssueCollector {
    let file: String?
    private(set) var issues: [ValidationIssue] = []

    init(file: String?) { self.file = file }

    var hasErrors: Bool { issues.contains { $0.severity == .error } }

    mutating func error(
        _ code: ValidationIssue.Code, _ pointer: JSONPointer, value: JSONValue? = nil, _ message: String, fix: String
    ) {
        issues.append(ValidationIssue(
            severity: .error, code: code, file: file, pointer: pointer.description, value: value, message: message, fix: fix))
    }

    mutating func warning(
        _ code: ValidationIssue.Code, _ pointer: JSONPointer, value: JSONValue? = nil, _ message: String, fix: String
    ) {
        issues.append(ValidationIssue(
            severity: .warning, code: code, file: file, pointer: pointer.description, value: value, message: message, fix: fix))
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
            case .syntax: (.jsonSyntax, "Fix \(name) at line \(failure.line), column \(failure.column) so it is strict JSON (no comments, trailing commas or single quotes).")
            case .duplicateKey: (.jsonDuplicateKey, "Keep one of the two keys in \(name); apps disagree on which duplicate wins.")
            case .invalidUTF8: (.jsonEncoding, "Save \(name) as UTF-8.")
            case .tooDeep: (.jsonTooDeep, "Flatten \(name): nest arrays and objects at most \(JSONParser.maximumDepth) levels deep.")
            }
        return ValidationIssue(
            severity: .error, code: code, file: file, pointer: "", value: nil,
            message: "\(name) is not valid JSON: line \(failure.line), column \(failure.column): \(failure.message).",
            fix: fix, line: failure.line, column: failure.column)
    }
}

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

/// Levenshtein distance for "did you mean" suggestions; O(n·m) on short identifiers.
func editDistance(_ a: String, _ b: String) -> Int {
    let left = Array(a.unicodeScalars)
    let right = Array(b.unicodeScalars)
    if left.isEmpty { return right.count }
    if right.isEmpty { return left.count }
    var previous = Array(0...right.count)
    var current = [Int](repeating: 0, count: right.count + 1)
    for i in 1...left.count {
        current[0] = i
        for j in 1...right.count {
            let cost = left[i - 1] == right[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[right.count]
}

/// The candidate closest to `word` when it is close enough to be a plausible typo, else `nil`.
func closestMatch(to word: String, among candidates: some Sequence<String>) -> String? {
    let limit = max(2, word.count / 3)
    var best: (String, Int)?
    let lowered = word.lowercased()
    for candidate in candidates {
        // Lengths further apart than the limit cannot be within it; skipping them keeps this cheap.
        guard abs(candidate.count - word.count) <= limit else { continue }
        let distance = editDistance(lowered, candidate.lowercased())
        if distance <= limit, best.map({ distance < $0.1 }) ?? true { best = (candidate, distance) }
    }
    return best?.0
}
