/// Entity-tag comparisons (RFC 9110 §8.8.3).
enum EntityTag {
    /// Whether an `If-None-Match` value matches `tag`: `*`, or any listed tag equal under weak comparison.
    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        let wanted = opaque(tag)
        for candidate in ifNoneMatch.split(separator: ",") {
            let trimmed = candidate.trimmingSpaces
            if trimmed == "*" { return true }
            if opaque(trimmed) == wanted { return true }
        }
        return false
    }

    /// Whether an `If-Range` value lets a range be served: a strong tag identical to `tag` (dates never match,
    /// since packages carry no Last-Modified).
    static func ifRangeMatches(_ ifRange: String, _ tag: String) -> Bool {
        let trimmed = ifRange.trimmingSpaces
        return !trimmed.hasPrefix("W/") && trimmed == tag
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        let slice = Substring(tag)
        return slice.hasPrefix("W/") ? slice.dropFirst(2) : slice
    }
}
