/// A client platform a release can target.
public enum Platform: String, Sendable, Hashable, CaseIterable, Comparable {
    case ios
    case android
    case harmony
    /// macOS (Chameleon skins iOS and macOS apps alike).
    case macos

    /// Orders as declared (ios, android, harmony, macos), so encoded platform lists are stable.
    public static func < (lhs: Platform, rhs: Platform) -> Bool {
        let order = Platform.allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
