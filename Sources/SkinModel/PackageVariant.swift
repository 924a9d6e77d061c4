/// One downloadable form of a skin: the screen scale its images are reduced to, and the appearance.
///
/// Invariant: `scale` is 1, 2 or 3.
public struct PackageVariant: Sendable, Hashable, CustomStringConvertible {
    /// The image scale kept in the package (1, 2 or 3); other scales are left out.
    public let scale: Int
    /// Light packages carry the skin's base values; dark packages have the dark overrides merged in.
    public let appearance: Appearance

    /// `nil` unless `scale` is 1, 2 or 3.
    public init?(scale: Int, appearance: Appearance) {
        guard (1...3).contains(scale) else { return nil }
        self.scale = scale
        self.appearance = appearance
    }

    private init(checkedScale: Int, appearance: Appearance) {
        scale = checkedScale
        self.appearance = appearance
    }

    /// The variant clients get without parameters: scale 3, light.
    public static let standard = PackageVariant(checkedScale: 3, appearance: .light)

    /// All six variants, ordered by scale then appearance (light first).
    public static let all: [PackageVariant] = [1, 2, 3].flatMap { scale in
        Appearance.allCases.map { PackageVariant(checkedScale: scale, appearance: $0) }
    }

    /// `"@3x-light"` style text for logs and file names.
    public var description: String { "@\(scale)x-\(appearance.rawValue)" }
}
