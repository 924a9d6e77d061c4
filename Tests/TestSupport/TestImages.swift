/// Image files whose headers are written by hand from the formats' specifications: only the bytes a header reader
/// needs (preview images in tests).
public enum TestImages {
    /// A PNG signature, an IHDR chunk with the size, and IEND.
    public static func png(width: UInt32, height: UInt32) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + bigEndian(width)
            + bigEndian(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    /// SOI, an APP0 (JFIF) segment, then a baseline SOF0 with the size, then EOI.
    public static func jpeg(width: UInt16, height: UInt16) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08] + bigEndian16(height) + bigEndian16(width) + [
                3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1
            ]
            + [0xFF, 0xD9]
    }

    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(value >> UInt32($0) & 0xFF) }
    }
    public static func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
