import LiveryProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Key files on disk: one PEM block, preceded by `Name: value` lines that OpenSSL's PEM reader skips (so
/// `openssl pkey -in FILE` reads the file as it is), of which `Livery-Key-Id:` names the key. Lines starting with
/// `#` and blank lines before the block are comments.
enum KeyFile {
    /// No key file Livery writes comes near this; anything larger is not a key file.
    static let maximumSize = 65_536

    /// The `Livery-Key-Id:` line followed by a line break, as written before the PEM block.
    static func idLine(_ id: KeyID) -> String { PublicKeyFile.idLine(id) }

    /// The id from the one `Livery-Key-Id:` line before the first `-----BEGIN ` line (name matched ignoring case).
    /// The one reading of that line, shared with the SDK (`PublicKeyFile.keyID(in:)`).
    static func keyID(in bytes: [UInt8], path: String) throws(KeyError) -> KeyID {
        do {
            return try PublicKeyFile.keyID(in: bytes)
        } catch {
            switch error {
            case .invalidKeyID(let text): throw .invalidKeyID(path: path, text: text)
            case .missingKeyID, .privateKey, .missingPublicKeyBlock, .invalidBase64: throw .missingKeyID(path: path)
            }
        }
    }

    /// The whole of the regular file at `path` (at most `maximumSize` bytes).
    ///
    /// With `ownerOnly`, a file whose mode gives its group or other users any access is refused before a byte is
    /// read. The checks use `fstat` on the descriptor that is then read, so the file checked is the file read.
    static func readAll(_ path: String, ownerOnly: Bool) throws(KeyError) -> [UInt8] {
        let outcome = Result { () throws(SystemCallError) -> Result<[UInt8], KeyError> in
            let file = try SystemFile.open(path, O_RDONLY)
            let status = try file.info()
            guard status.st_mode & S_IFMT == S_IFREG else { return .failure(.notARegularFile(path: path)) }
            if ownerOnly && status.st_mode & 0o077 != 0 {
                return .failure(.readableByOthers(path: path, mode: UInt32(status.st_mode)))
            }
            guard status.st_size <= maximumSize else { return .failure(.tooLarge(path: path)) }
            // One byte more than allowed: the file may have grown between fstat and read.
            let bytes = try file.readAll(limit: maximumSize + 1)
            return bytes.count <= maximumSize ? .success(bytes) : .failure(.tooLarge(path: path))
        }
        switch outcome {
        case .success(let checked): return try checked.get()
        case .failure(let error): throw .cannotRead(path: path, code: error.errno)
        }
    }

    /// Creates the file `path` holding `bytes`, readable and writable by its owner only (mode 0600), durably, and
    /// never over an existing file (or a symbolic link, even a dangling one): `DurableFile.create`, which links a
    /// synced temporary file to `path`, so another process never sees a half-written key, a crash leaves no
    /// partial file at `path`, and two concurrent writers cannot both win.
    static func create(_ path: String, bytes: [UInt8]) throws(KeyError) {
        guard !SystemPath.lastComponent(of: path).isEmpty else { throw .notARegularFile(path: path) }
        do throws(SystemCallError) {
            try DurableFile.create(path, with: bytes, mode: 0o600)
        } catch {
            if error.errno == EEXIST && error.operation == "link" { throw .fileExists(path: path) }
            throw .cannotWrite(path: path, code: error.errno)
        }
    }
}
