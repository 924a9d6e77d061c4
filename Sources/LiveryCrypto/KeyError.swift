import LiveryProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a key could not be made, written, read or used. Each case names the file (when there is one) and `fix` says
/// what to do. No case ever holds key material.
public enum KeyError: Error, Equatable, CustomStringConvertible {
    /// `write(toNewFile:)` found a file at the path; nothing was changed.
    case fileExists(path: String)
    /// Creating, writing or syncing the new key file failed with this errno; nothing is left at the path.
    case cannotWrite(path: String, code: Int32)
    /// The file could not be opened or read (errno).
    case cannotRead(path: String, code: Int32)
    /// The path names a folder, a device or another non-regular file.
    case notARegularFile(path: String)
    /// A private key file that its group or other users may read (the permission bits are in `mode`).
    case readableByOthers(path: String, mode: UInt32)
    /// Larger than any key file (64 KiB).
    case tooLarge(path: String)
    /// No `Livery-Key-Id:` line before the PEM block.
    case missingKeyID(path: String)
    /// A `Livery-Key-Id:` line whose value breaks `KeyID.rule`, or two such lines.
    case invalidKeyID(path: String, text: String)
    /// The file holds no usable PEM block of the kind wanted (`expected` says which and what was found instead).
    case notAKey(path: String, expected: String)
    /// A key of another type or curve than ECDSA P-256.
    case unsupportedKey(path: String)
    /// OpenSSL failed at `operation` (key generation or signing; out of memory or a broken library).
    case cryptoFailure(operation: String)

    public var description: String {
        switch self {
        case .fileExists(let path): "\(path): the file already exists; a key file is never overwritten"
        case .cannotWrite(let path, let code): "\(path): cannot write the key file: \(Self.systemMessage(code))"
        case .cannotRead(let path, let code): "\(path): cannot read the file: \(Self.systemMessage(code))"
        case .notARegularFile(let path): "\(path): not a regular file"
        case .readableByOthers(let path, let mode):
            "\(path): the private key file may be read by other users (mode \(String(mode & 0o777, radix: 8)))"
        case .tooLarge(let path): "\(path): too large to be a key file (more than 64 KiB)"
        case .missingKeyID(let path): "\(path): no 'Livery-Key-Id:' line before the -----BEGIN line"
        case .invalidKeyID(let path, let text): "\(path): the key id '\(text)' is not \(KeyID.rule), or is given twice"
        case .notAKey(let path, let expected): "\(path): expected \(expected)"
        case .unsupportedKey(let path): "\(path): not an ECDSA P-256 key (the only kind Livery signs with)"
        case .cryptoFailure(let operation): "OpenSSL failed to \(operation)"
        }
    }

    /// What the operator should do about it.
    public var fix: String {
        switch self {
        case .fileExists: "Choose another --out path, or move the old file away if it is really no longer needed."
        case .cannotWrite: "Write to a folder you may create files in."
        case .cannotRead: "Check the path and its permissions."
        case .notARegularFile: "Give the path of the key file itself."
        case .readableByOthers(let path, _): "Run `chmod 600 \(path)` (the file must be readable by its owner only)."
        case .tooLarge, .notAKey, .unsupportedKey:
            "Use a file written by `livery keys create` (or its public key output for verification)."
        case .missingKeyID, .invalidKeyID:
            "Put one line `Livery-Key-Id: ID` (\(KeyID.rule)) before the -----BEGIN line, as `livery keys create` does."
        case .cryptoFailure: "Retry; if it persists, check the OpenSSL installation (libssl3)."
        }
    }

    private static func systemMessage(_ code: Int32) -> String {
        "\(SystemCallError.text(code)) (errno \(code))"
    }
}
