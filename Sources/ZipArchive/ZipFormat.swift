/// Constants and record layouts of the ZIP format, as specified in PKWARE's APPNOTE.TXT (version 6.3.x).
/// Section numbers below refer to that document.
enum ZipFormat {
    // 4.3.7, 4.3.12, 4.3.14, 4.3.15, 4.3.16: record signatures.
    static let localFileHeaderSignature: UInt32 = 0x0403_4B50
    static let centralFileHeaderSignature: UInt32 = 0x0201_4B50
    static let zip64EndOfCentralDirectorySignature: UInt32 = 0x0606_4B50
    static let zip64EndOfCentralDirectoryLocatorSignature: UInt32 = 0x0706_4B50
    static let endOfCentralDirectorySignature: UInt32 = 0x0605_4B50
    static let dataDescriptorSignature: UInt32 = 0x0807_4B50

    // Fixed record sizes (bytes before the variable-length name, extra and comment fields).
    static let localFileHeaderSize = 30
    static let centralFileHeaderSize = 46
    static let zip64EndOfCentralDirectorySize = 56
    static let zip64EndOfCentralDirectoryLocatorSize = 20
    static let endOfCentralDirectorySize = 22
    /// 4.3.16: the comment is at most 65,535 bytes, so the EOCD starts within this many bytes of the end.
    static let maximumEndOfCentralDirectorySearch = endOfCentralDirectorySize + 0xFFFF

    // 4.4.5: compression methods.
    static let methodStored: UInt16 = 0
    static let methodDeflated: UInt16 = 8
    /// APPNOTE 4.4.5 / WinZip AE-x: AES encryption is announced as method 99.
    static let methodAESEncrypted: UInt16 = 99

    // 4.4.4: general purpose bit flags.
    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
    static let flagStrongEncryption: UInt16 = 1 << 6
    static let flagUTF8: UInt16 = 1 << 11
    static let flagMaskedLocalHeader: UInt16 = 1 << 13

    // 4.4.3.2: version needed to extract.
    static let versionStored: UInt16 = 10
    static let versionDeflated: UInt16 = 20
    static let versionZip64: UInt16 = 45
    /// 4.4.2: upper byte 3 = UNIX (so readers honour the mode in the external attributes), lower byte 45 =
    /// the specification version whose features the writer uses (4.5, Zip64). Fixed for determinism.
    static let versionMadeBy: UInt16 = 3 << 8 | 45

    /// 4.4.6: MS-DOS time 00:00:00 and date 1980-01-01 ((1980 - 1980) << 9 | 1 << 5 | 1), the earliest
    /// representable instant; fixed so archives do not depend on file times.
    static let dosTime: UInt16 = 0
    static let dosDate: UInt16 = 0x0021

    /// 4.4.15: external attributes for UNIX hosts carry `st_mode` in the upper 16 bits: a regular file, 0644.
    static let regularFileExternalAttributes: UInt32 = 0o100644 << 16
    static let unixFileTypeMask: UInt32 = 0o170000
    static let unixRegularFile: UInt32 = 0o100000
    static let unixDirectory: UInt32 = 0o040000
    static let unixSymbolicLink: UInt32 = 0o120000

    /// 4.5.3: the Zip64 extended information extra field's header ID.
    static let zip64ExtraFieldID: UInt16 = 0x0001

    /// 4.4.1.4: a 32-bit field holding this value means "see the Zip64 record"; 16-bit fields use 0xFFFF.
    static let sentinel32: UInt32 = 0xFFFF_FFFF
    static let sentinel16: UInt16 = 0xFFFF
}
