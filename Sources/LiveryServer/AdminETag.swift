import LiveryHTTP
import SkinServing

/// Entity tags of admin resources and `If-Match` preconditions (RFC 9110 §13.1.1).
///
/// A skin's tag is its store revision (`SkinState.revision`), the kill switches' tag theirs
/// (`KillSwitches.revision`), both as a strong tag such as `"42"`. A write carrying `If-Match` happens only if
/// the resource's tag is still one of the listed ones (`*` matches any existing resource); otherwise 412.
/// Without `If-Match` a write is unconditional.
enum AdminETag {
    /// The strong entity tag for `revision` (`AdminJSON.entityTag`).
    static func tag(_ revision: Int) -> String { AdminJSON.entityTag(revision) }

    /// The `If-Match` precondition of a request, checked by the change's rule (`ChangeCondition.check`).
    typealias Condition = ChangeCondition

    /// Parses `If-Match`.
    ///
    /// - Throws: 400 naming `If-Match` if a listed tag is not a quoted revision number; weak tags (`W/"1"`) are
    ///   refused too, since `If-Match` compares strongly.
    static func condition(_ request: HTTPRequest) throws(APIError) -> Condition {
        let values = request.headers.values("If-Match")
        guard !values.isEmpty else { return .none }
        var revisions: [Int] = []
        for value in values {
            for part in value.split(separator: ",") {
                let tag = trimmed(part)
                if tag == "*" { return .any }
                guard tag.count >= 3, tag.first == "\"", tag.last == "\"",
                    let revision = Int(tag.dropFirst().dropLast()),
                    revision >= 0
                else {
                    throw APIError.invalidField(
                        "If-Match", "must list entity tags from an ETag header, such as \"12\" (with the quotes), or *",
                        code: "invalid_header")
                }
                revisions.append(revision)
            }
        }
        return .revisions(revisions)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
