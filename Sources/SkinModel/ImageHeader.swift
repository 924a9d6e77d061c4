/// The format and pixel size an image file's header declares, read hostile-first: every offset is checked against
/// the bytes present before it is read, nothing is decoded beyond the header, and a header that does not parse
/// is an answer (``Problem``), never a trap.
public struct ImageHeader: Sendable, Hashable {
    /// The formats whose headers are read.
    public enum Format: String, Sendable, Hashable {
        case png = "PNG"
        case jpeg = "JPEG"
        case webp = "WebP"
    }

    public var format: Format
    public var width: Int
    public var height: Int

    public init(format: Format, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Why a header could not be read.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not a PNG, JPEG or WebP file (a GIF, or anything else).
        case unsupportedFormat
        /// The magic number is there but the header is cut short or malformed.
        case malformed(Format, String)

        public var description: String {
            switch self {
            case .unsupportedFormat: "it is not a PNG, JPEG or WebP file"
            case .malformed(let format, let reason): "its \(format.rawValue) header is malformed: \(reason)"
            }
        }
    }

    /// Bytes of a file's start that ``read(_:)`` needs at most (a JPEG's size follows its metadata segments).
    public static let prefixLength = 256 * 1024

    /// Reads the header at the start of `bytes` (the whole file, or at least its first ``prefixLength`` bytes).
    public static func read(_ bytes: [UInt8]) -> Result<ImageHeader, Problem> {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return jpeg(bytes) }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return webp(bytes)
        }
        return .failure(.unsupportedFormat)
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<(offset + count)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// PNG: the first chunk must be IHDR (length 13), holding width and height as 31-bit big-endian integers.
    private static func png(_ bytes: [UInt8]) -> Result<ImageHeader, Problem> {
        guard let length = bigEndian(bytes, 8, 4), let width = bigEndian(bytes, 16, 4),
            let height = bigEndian(bytes, 20, 4)
        else { return .failure(.malformed(.png, "the file ends before the IHDR chunk")) }
        guard length == 13, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return .failure(.malformed(.png, "the first chunk is not a 13-byte IHDR"))
        }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            return .failure(.malformed(.png, "IHDR declares \(width)×\(height) pixels"))
        }
        return .success(ImageHeader(format: .png, width: width, height: height))
    }

    /// JPEG: walks the marker segments after SOI until a start-of-frame (SOF0–SOF15 except DHT, JPG and DAC),
    /// whose payload holds the height and width; scan data or the end of the bytes first is malformed.
    private static func jpeg(_ bytes: [UInt8]) -> Result<ImageHeader, Problem> {
        var offset = 2
        while offset < bytes.count {
            guard bytes[offset] == 0xFF else { return .failure(.malformed(.jpeg, "no marker at byte \(offset)")) }
            // Fill bytes: any number of 0xFF before a marker.
            var markerAt = offset + 1
            while markerAt < bytes.count, bytes[markerAt] == 0xFF { markerAt += 1 }
            guard markerAt < bytes.count else { break }
            let marker = bytes[markerAt]
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset = markerAt + 1
                continue
            }
            guard marker != 0xD9, marker != 0xDA else {
                return .failure(.malformed(.jpeg, "the image data starts before any frame header"))
            }
            guard let length = bigEndian(bytes, markerAt + 1, 2), length >= 2 else { break }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(bytes, markerAt + 4, 2), let width = bigEndian(bytes, markerAt + 6, 2)
                else { break }
                guard width > 0, height > 0 else {
                    return .failure(.malformed(.jpeg, "the frame header declares \(width)×\(height) pixels"))
                }
                return .success(ImageHeader(format: .jpeg, width: width, height: height))
            }
            offset = markerAt + 1 + length
        }
        return .failure(.malformed(.jpeg, "no frame header in the first \(min(bytes.count, prefixLength)) bytes"))
    }

    /// WebP: the first chunk is `VP8 ` (lossy: 14-bit sizes after the frame start code), `VP8L` (lossless:
    /// 14-bit sizes minus one after the 0x2F signature) or `VP8X` (extended: 24-bit canvas sizes minus one).
    private static func webp(_ bytes: [UInt8]) -> Result<ImageHeader, Problem> {
        guard bytes.count >= 30 else {
            return .failure(.malformed(.webp, "the file ends before the first chunk's header"))
        }
        let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
        var size: (Int, Int)?
        switch chunk {
        case "VP8 ":
            if Array(bytes[23..<26]) == [0x9D, 0x01, 0x2A], let width = littleEndian(bytes, 26, 2),
                let height = littleEndian(bytes, 28, 2)
            {
                size = (width & 0x3FFF, height & 0x3FFF)
            }
        case "VP8L":
            if bytes[20] == 0x2F, let bits = littleEndian(bytes, 21, 4) {
                size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            }
        case "VP8X":
            if let width = littleEndian(bytes, 24, 3), let height = littleEndian(bytes, 27, 3) {
                size = (width + 1, height + 1)
            }
        default:
            return .failure(.malformed(.webp, "the first chunk \"\(chunk)\" is not VP8, VP8L or VP8X"))
        }
        guard let size, size.0 > 0, size.1 > 0 else {
            return .failure(.malformed(.webp, "the \(chunk) header declares no size"))
        }
        return .success(ImageHeader(format: .webp, width: size.0, height: size.1))
    }
}
