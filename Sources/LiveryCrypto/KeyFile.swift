#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotRead(path: path, code: errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .cannotRead(path: path, code: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        if ownerOnly && status.st_mode & 0o077 != 0 { throw .readableByOthers(path: path, mode: UInt32(status.st_mode)) }
        guard status.st_size <= maximumSize else { throw .tooLarge(path: path) }
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + total }, $0.count - total) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .cannotRead(path: path, code: errno) }
            if count == 0 { break }
            total += count
        }
        // The file may have grown between fstat and read.
        guard total <= maximumSize else { throw .tooLarge(path: path) }
        return Array(bytes[..<total])
    }

    /// Creates the file `path` holding `bytes`, readable and writable by its owner only (mode 0600), durably, and
    /// never over an existing file (or a symbolic link, even a dangling one).
    ///
    /// The bytes go to a temporary file in the same folder (created with `O_EXCL`, mode 0600), are synced, and are
    /// then linked to `path` with `link(2)`, which fails when `path` exists: so another process never sees a
    /// half-written key, a crash leaves no partial file at `path`, and two concurrent writers cannot both win. The
    /// temporary name is removed in every case.
    static func create(_ path: String, bytes: [UInt8]) throws(KeyError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty else { throw .notARegularFile(path: path) }
        var probe = stat()
        if lstat(path, &probe) == 0 { throw .fileExists(path: path) }
        let suffix = (try? Secrets.randomBytes(count: 6)).map(Hex.encode) ?? "\(time(nil))"
        let temporary = (directory == "/" ? "" : directory) + "/.\(name).tmp-\(getpid())-\(suffix)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path: path, code: errno) }
        var failure: Int32 = 0
        // The umask can only clear bits of 0600; fchmod makes the mode exact whatever the umask.
        if fchmod(fd, 0o600) != 0 { failure = errno }
        var written = 0
        while failure == 0 && written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + written }, $0.count - written) }
            if count < 0 { if errno != EINTR { failure = errno } } else { written += count }
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && link(temporary, path) != 0 { failure = errno }
        unlink(temporary)
        if failure == EEXIST { throw .fileExists(path: path) }
        guard failure == 0 else { throw .cannotWrite(path: path, code: failure) }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            defer { close(directoryFD) }
            guard fsync(directoryFD) == 0 else { throw .cannotWrite(path: path, code: errno) }
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
