/// A color value of `config.json`: a fixed color in one of ``SkinColor``'s spellings, or Chameleon's `random`
/// (the app draws a random color each time it applies the theme).
///
/// Like every color, it reaches the app exactly as written; Livery only checks that the app can read it.
public enum ConfigColor: Sendable, Hashable, CustomStringConvertible {
    /// A color the skin fixes.
    case fixed(SkinColor)
    /// Chameleon's `"random"`: no color is fixed; the app picks one.
    case random

    /// The one spelling of ``random``, lowercase as Chameleon writes it.
    public static let randomSpelling = "random"

    /// Every accepted spelling, as shown in fixes and docs/SKINS.md.
    public static let acceptedSpellings =
        SkinColor.acceptedSpellings + ", or \"random\" (Chameleon: the app picks a color)"

    /// Parses `random` or one of ``SkinColor/init(parsing:)``'s spellings; `nil` for anything else.
    public init?(parsing text: String) {
        if text == Self.randomSpelling {
            self = .random
            return
        }
        guard let color = SkinColor(parsing: text) else { return nil }
        self = .fixed(color)
    }

    /// The fixed color's ``SkinColor/description``, or `random`.
    public var description: String {
        switch self {
        case .fixed(let color): color.description
        case .random: Self.randomSpelling
        }
    }
}
