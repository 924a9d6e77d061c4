/// The system appearance a package is built for. Dark packages apply the skin's dark overrides.
public enum Appearance: String, Sendable, Hashable, CaseIterable {
    case light
    case dark
}
