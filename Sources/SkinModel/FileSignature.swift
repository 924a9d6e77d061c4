/// The file types whose content Livery checks against the extension, by magic number (JSON: by parsing).
enum FileSignature: String, Sendable, CaseIterable {
    case png = "PNG"
    case jpeg = "JPEG"
    case gif = "GIF"
    case webp = "WebP"
    case json = "JSON"

    /// The type an extension (lowercased) claims, or `nil` for extensions that are not checked.
    init?(fileExtension: String) {
        switch fileExtension {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "gif": self = .gif
        case "webp": self = .webp
        case "json": self = .json
        default: return nil
        }
    }

    /// Bytes needed to recognize any binary type.
    static let prefixLength = 12

    /// Whether `prefix` (the first bytes of a file) starts like this binary type. Always `true` for JSON,
    /// which is checked by parsing instead.
    func matches(_ prefix: [UInt8]) -> Bool {
        switch self {
        case .png: prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .jpeg: prefix.starts(with: [0xFF, 0xD8, 0xFF])
        case .gif: prefix.starts(with: Array("GIF87a".utf8)) || prefix.starts(with: Array("GIF89a".utf8))
        case .webp:
            prefix.count >= 12 && prefix.starts(with: Array("RIFF".utf8)) && Array(prefix[8..<12]) == Array("WEBP".utf8)
        case .json: true
        }
    }

    /// The binary type `prefix` actually looks like, for messages.
    static func detect(_ prefix: [UInt8]) -> FileSignature? {
        [.png, .jpeg, .gif, .webp].first { $0.matches(prefix) }
    }
}
