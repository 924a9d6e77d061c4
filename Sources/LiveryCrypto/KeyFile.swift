#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemCalls

/// Key files on disk: one PEM block, preceded by `Name: value` lines that OpenSSL's PEM reader skips (so
/// `openssl pkey -in FILE` reads the file as it is), of which `Livery-Key-Id:` names the key. Lines starting with
/// `#` and blank lines before the block are comments.
enum KeyFile {
    /// The line that records a key's id.
    static let idLabel = "Livery-Key-Id"
    /// No key file Livery writes comes near this; anything larger is not a key file.
    static let maximumSize = 65_536

    /// The `Livery-Key-Id:` line followed by a line break, as written before the PEM block.
    static func idLine(_ id: KeyID) -> String { "\(idLabel): \(id.text)\n" }

    /// The id from the one `Livery-Key-Id:` line before the first `-----BEGIN ` line (name matched ignoring case).
    static func keyID(in bytes: [UInt8], path: String) throws(KeyError) -> KeyID {
        var found: KeyID?
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = String(decoding: rawLine, as: UTF8.self)
            if line.hasPrefix("-----BEGIN ") { break }
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].lowercased() == idLabel.lowercased()
            else { continue }
            let value = line[line.index(after: colon)...].trimmingSpacesAndTabs(alsoCarriageReturn: true)
            guard found == nil, let id = KeyID(value) else { throw .invalidKeyID(path: path, text: String(value)) }
            found = id
        }
        guard let found else { throw .missingKeyID(path: path) }
        return found
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

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (and carriage returns when asked).
    func trimmingSpacesAndTabs(alsoCarriageReturn: Bool = false) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || (alsoCarriageReturn && $0 == "\r") }
        let text = Substring(self)
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return text[first...last]
    }
}
