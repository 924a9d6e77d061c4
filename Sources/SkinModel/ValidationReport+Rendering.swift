import LiveryJSON

extension ValidationIssue {
    /// The issue as a JSON object: `severity`, `code`, `file` (or null), `pointer`, `value` (when present),
    /// `line`/`column` (when known), `message`, `fix`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["severity"] = .string(severity.rawValue)
        object["code"] = .string(code.rawValue)
        object["file"] = file.map(JSONValue.string) ?? .null
        object["pointer"] = .string(pointer)
        if let value { object["value"] = value }
        if let line { object["line"] = .number(JSONNumber(line)) }
        if let column { object["column"] = .number(JSONNumber(column)) }
        object["message"] = .string(message)
        object["fix"] = .string(fix)
        return .object(object)
    }
}

extension ValidationReport {
    /// The report as JSON (for HTTP 422 bodies and `livery validate --json`):
    /// `{"valid", "skin": id or null, "errors": n, "warnings": n, "issues": [...], "coverage": {...}}`
    /// (`coverage` only when a base was given). Deterministic.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["valid"] = .bool(isValid)
        object["skin"] = manifest.map { .string($0.id.rawValue) } ?? .null
        object["errors"] = .number(JSONNumber(errors.count))
        object["warnings"] = .number(JSONNumber(warnings.count))
        object["issues"] = .array(issues.map(\.jsonValue))
        if let coverage { object["coverage"] = coverage.jsonValue }
        return .object(object)
    }

    /// The report for people: a summary line, then each issue with its place, message and fix, then coverage.
    ///
    /// - Parameter name: how to call the skin in the summary (such as the folder given on the command line).
    public func renderedText(name: String) -> String {
        var lines: [String] = []
        let id = manifest.map { " (\($0.id))" } ?? ""
        let verdict = sourceWasUnreadable ? "UNREADABLE" : isValid ? "valid" : "INVALID"
        lines.append("\(name)\(id): \(verdict), \(plural(errors.count, "error")), \(plural(warnings.count, "warning"))")
        for issue in issues {
            lines.append("")
            lines.append("\(issue.severity.rawValue) [\(issue.code)] \(issue.location)")
            if let value = issue.value { lines.append("  value: \(value.compactText)") }
            lines.append("  \(issue.message)")
            lines.append("  fix: \(issue.fix)")
        }
        if let coverage {
            lines.append("")
            lines.append(
                "coverage against the base config: \(coverage.overridden.count) overridden, "
                    + "\(coverage.fallingBack.count) falling back, \(coverage.unknownToBase.count) unknown to the base")
            for key in coverage.overridden { lines.append("  overridden    \(key)") }
            for entry in coverage.fallingBack {
                let source = entry.resolvedBy.map { "skin's \($0)" } ?? "the app's default"
                lines.append("  falls back    \(entry.key) -> \(source)")
            }
            for entry in coverage.unknownToBase {
                let hint = entry.suggestion.map { " (did you mean \($0)?)" } ?? ""
                lines.append("  unknown       \(entry.key)\(hint)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
