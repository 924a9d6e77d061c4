/// The four sections a `config.json` module may hold (Ziroom's model).
public enum ConfigSection: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Colors in any spelling ``ConfigColor/init(parsing:)`` accepts (``SkinColor``'s, or Chameleon's `random`).
    case colors
    /// Images: bundled names, `file://` names, solid colors or `https://` URLs (see ``ImageReference``).
    case images
    /// Free values (strings, numbers, booleans, arrays, objects) passed to the app as they are.
    case values
    /// Files the app loads itself (GIF animations, Lottie JSON, …); each must exist in the skin.
    case resources

    public static func < (lhs: ConfigSection, rhs: ConfigSection) -> Bool {
        let order = ConfigSection.allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
