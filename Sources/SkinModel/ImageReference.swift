/// What an `images` value means once parsed and resolved against the skin's files.
public enum ImageReference: Sendable, Hashable {
    /// Image files in the skin (one per available scale).
    case asset(ImageAsset)
    /// A solid-color image the app draws itself (`{"color": "ffffff"}`, AUUTheme type 2; `random` too).
    case solidColor(ConfigColor)
    /// A remote image the app downloads itself (`https://…`, AUUTheme type 3); not part of the package.
    case remote(url: String)
}

/// A set of image files standing for one image at different scales: `tab.png`, `tab@2x.png`, `tab@3x.png`.
///
/// Invariant: `variants` is non-empty, sorted by scale, one file per scale.
public struct ImageAsset: Sendable, Hashable {
    /// How the app loads the image, as the spelling told it.
    public enum Loading: Sendable, Hashable {
        /// By name (`tab_home`, `{"name": …}`, AUUTheme type 0), like `UIImage(named:)`.
        case named
        /// As a file (`file://tab_home.png`, `{"file": …}`, AUUTheme type 1), like `UIImage(contentsOfFile:)`.
        case file
    }

    public var loading: Loading
    /// The name as written, without any `file://` prefix.
    public var reference: String
    /// The files found, by scale.
    public var variants: [ScaledFile]
    /// `true` when the reference names one exact scale (`tab@2x.png`): that file ships in every package.
    public var isPinned: Bool

    public init(loading: Loading, reference: String, variants: [ScaledFile], isPinned: Bool = false) {
        self.loading = loading
        self.reference = reference
        self.variants = variants.sorted { $0.scale < $1.scale }
        self.isPinned = isPinned
    }

    /// The file to ship for a device of `scale`: that scale when present, otherwise the nearest one,
    /// preferring the higher on a tie (a downscaled image looks better than an upscaled one).
    public func file(forScale scale: Int) -> AssetPath? {
        variants.min { a, b in
            let da = abs(a.scale - scale)
            let db = abs(b.scale - scale)
            return da != db ? da < db : a.scale > b.scale
        }?.path
    }
}

/// One image file and the screen scale it is drawn for (1 unless its name ends in `@2x` or `@3x`).
public struct ScaledFile: Sendable, Hashable {
    public var scale: Int
    public var path: AssetPath

    public init(scale: Int, path: AssetPath) {
        self.scale = scale
        self.path = path
    }
}
