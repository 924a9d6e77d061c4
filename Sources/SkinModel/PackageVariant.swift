/// What a package's configs are for: one appearance, or both in one download (`appearance=any`).
public enum PackageAppearance: String, Sendable, Hashable, CaseIterable {
    /// The skin's base values (`config.json`).
    case light
    /// The dark overrides merged in (`config.json`).
    case dark
    /// Both, for an app that switches appearance at runtime without the network: the light `config.json`, the dark
    /// `config-dark.json`, and every file either references.
    case any

    /// The package appearance of a single appearance.
    public init(_ appearance: Appearance) {
        switch appearance {
        case .light: self = .light
        case .dark: self = .dark
        }
    }

    /// The appearances whose configs the package holds, light first.
    public var appearances: [Appearance] {
        switch self {
        case .light: [.light]
        case .dark: [.dark]
        case .any: [.light, .dark]
        }
    }
}

/// One downloadable form of a skin: the screen scale its images are reduced to, and the appearance(s).
///
/// Invariant: `scale` is 1, 2 or 3.
public struct PackageVariant: Sendable, Hashable, CustomStringConvertible {
    /// The image scale kept in the package (1, 2 or 3); other scales are left out.
    public let scale: Int
    /// Light packages carry the skin's base values; dark packages have the dark overrides merged in; `any`
    /// packages carry both configs.
    public let appearance: PackageAppearance

    /// `nil` unless `scale` is 1, 2 or 3.
    public init?(scale: Int, appearance: Appearance) {
        self.init(scale: scale, contents: PackageAppearance(appearance))
    }

    /// `nil` unless `scale` is 1, 2 or 3; `contents: .any` is the variant holding both appearances.
    public init?(scale: Int, contents: PackageAppearance) {
        guard (1...3).contains(scale) else { return nil }
        self.scale = scale
        appearance = contents
    }

    private init(checkedScale: Int, appearance: PackageAppearance) {
        scale = checkedScale
        self.appearance = appearance
    }

    /// The variant clients get without parameters: scale 3, light.
    public static let standard = PackageVariant(checkedScale: 3, appearance: .light)

    /// The six single-appearance variants, ordered by scale then appearance (light first).
    public static let all: [PackageVariant] = [1, 2, 3].flatMap { scale in
        Appearance.allCases.map { PackageVariant(checkedScale: scale, appearance: PackageAppearance($0)) }
    }

    /// The three variants holding both appearances, one per scale.
    public static let bothAppearances: [PackageVariant] = [1, 2, 3].map {
        PackageVariant(checkedScale: $0, appearance: .any)
    }

    /// `"@3x-light"` style text for logs and file names (`"@3x-any"` for both appearances).
    public var description: String { "@\(scale)x-\(appearance.rawValue)" }
}
