/// Constants and record layouts of the ZIP format, as specified in PKWARE's APPNOTE.TXT (version 6.3.x).
/// Section numbers below refer to that document. Shared by the reader and the writer (ZipArchive).
package enum ZipFormat {
    // 4.3.7, 4.3.12, 4.3.14, 4.3.15, 4.3.16: record signatures.
    package static let localFileHeaderSignature: UInt32 = 0x0403_4B50
    package static let centralFileHeaderSignature: UInt32 = 0x0201_4B50
    package static let zip64EndOfCentralDirectorySignature: UInt32 = 0x0606_4B50
    package static let zip64EndOfCentralDirectoryLocatorSignature: UInt32 = 0x0706_4B50
    package static let endOfCentralDirectorySignature: UInt32 = 0x0605_4B50
    package static let dataDescriptorSignature: UInt32 = 0x0807_4B50

    // Fixed record sizes (bytes before the variable-length name, extra and comment fields).
    package static let localFileHeaderSize = 30
    package static let centralFileHeaderSize = 46
    package static let zip64EndOfCentralDirectorySize = 56
    package static let zip64EndOfCentralDirectoryLocatorSize = 20
    package static let endOfCentralDirectorySize = 22
    /// 4.3.16: the comment is at most 65,535 bytes, so the EOCD starts within this many bytes of the end.
    package static let maximumEndOfCentralDirectorySearch = endOfCentralDirectorySize + 0xFFFF

    // 4.4.5: compression methods.
    package static let methodStored: UInt16 = 0
    package static let methodDeflated: UInt16 = 8
    /// APPNOTE 4.4.5 / WinZip AE-x: AES encryption is announced as method 99.
    package static let methodAESEncrypted: UInt16 = 99

    // 4.4.4: general purpose bit flags.
    package static let flagEncrypted: UInt16 = 1 << 0
    package static let flagDataDescriptor: UInt16 = 1 << 3
    package static let flagStrongEncryption: UInt16 = 1 << 6
    package static let flagUTF8: UInt16 = 1 << 11
    package static let flagMaskedLocalHeader: UInt16 = 1 << 13

    // 4.4.3.2: version needed to extract.
    package static let versionStored: UInt16 = 10
    package static let versionDeflated: UInt16 = 20
    package static let versionZip64: UInt16 = 45
    /// 4.4.2: upper byte 3 = UNIX (so readers honour the mode in the external attributes), lower byte 45 =
    /// the specification version whose features the writer uses (4.5, Zip64). Fixed for determinism.
    package static let versionMadeBy: UInt16 = 3 << 8 | 45

    /// 4.4.6: MS-DOS time 00:00:00 and date 1980-01-01 ((1980 - 1980) << 9 | 1 << 5 | 1), the earliest
    /// representable instant; fixed so archives do not depend on file times.
    package static let dosTime: UInt16 = 0
    package static let dosDate: UInt16 = 0x0021

    /// 4.4.15: external attributes for UNIX hosts carry `st_mode` in the upper 16 bits: a regular file, 0644.
    package static let regularFileExternalAttributes: UInt32 = 0o100644 << 16
    package static let unixFileTypeMask: UInt32 = 0o170000
    package static let unixRegularFile: UInt32 = 0o100000
    package static let unixDirectory: UInt32 = 0o040000
    package static let unixSymbolicLink: UInt32 = 0o120000

    /// 4.5.3: the Zip64 extended information extra field's header ID.
    package static let zip64ExtraFieldID: UInt16 = 0x0001

    /// 4.4.1.4: a 32-bit field holding this value means "see the Zip64 record"; 16-bit fields use 0xFFFF.
    package static let sentinel32: UInt32 = 0xFFFF_FFFF
    package static let sentinel16: UInt16 = 0xFFFF
}
