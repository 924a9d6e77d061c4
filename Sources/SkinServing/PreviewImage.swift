import LiveryCrypto
import SkinModel

/// A preview image a theme list links to, held in memory and served at a content-addressed URL
/// (`<sha256>.<ext>`), so its bytes never change under a URL.
///
/// Immutable; a class so that catalogs and releases share one copy of the bytes.
public final class PreviewImage: Sendable {
    /// Lowercase hex SHA-256 of `bytes`.
    public let sha256: String
    /// `png`, `jpg` or `webp`.
    public let fileExtension: String
    /// `image/png`, `image/jpeg` or `image/webp`.
    public let mediaType: String
    public let bytes: [UInt8]

    /// The preview in `bytes`, or nil when they are not a PNG, JPEG or WebP image whose header parses (the
    /// validator refuses such a skin, so a stored version that gets here has been damaged).
    public init?(bytes: [UInt8]) {
        guard case .success(let header) = ImageHeader.read(bytes) else { return nil }
        switch header.format {
        case .png: (fileExtension, mediaType) = ("png", "image/png")
        case .jpeg: (fileExtension, mediaType) = ("jpg", "image/jpeg")
        case .webp: (fileExtension, mediaType) = ("webp", "image/webp")
        }
        self.sha256 = SHA256.hexHash(bytes)
        self.bytes = bytes
    }

    /// The name it is served under: `<sha256>.<ext>`.
    public var fileName: String { sha256 + "." + fileExtension }
}

/// A skin's previews: one, or one per appearance.
public struct SkinPreviews: Sendable {
    public let light: PreviewImage
    /// The dark preview, when the skin gives one.
    public let dark: PreviewImage?

    public init(light: PreviewImage, dark: PreviewImage? = nil) {
        self.light = light
        self.dark = dark
    }

    /// The preview for a package of `appearance`: the dark one for dark when there is one, else the light one
    /// (both appearances in one package are shown by the light preview).
    public func image(for appearance: PackageAppearance) -> PreviewImage {
        appearance == .dark ? dark ?? light : light
    }

    /// The previews `manifest` names, read from `source`; nil when it names none or one cannot be read as an
    /// image.
    public static func read(_ manifest: SkinManifest, from source: any SkinSource) -> SkinPreviews? {
        guard let named = manifest.preview else { return nil }
        func image(_ path: AssetPath) -> PreviewImage? {
            guard let bytes = try? source.read(path.rawValue) else { return nil }
            return PreviewImage(bytes: bytes)
        }
        guard let light = image(named.light) else { return nil }
        guard let darkPath = named.dark else { return SkinPreviews(light: light) }
        guard let dark = image(darkPath) else { return nil }
        return SkinPreviews(light: light, dark: dark)
    }

    /// Each distinct image.
    public var images: [PreviewImage] { [light] + (dark.map { [$0] } ?? []) }
}
