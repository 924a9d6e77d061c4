import Crypto
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads one package to `downloads/<sign>.part`, hashing each chunk as it arrives and never writing past the
/// size the answer gave. A part left by a cut download is resumed with `Range` and `If-Range` (the entity tag the
/// first response gave), its bytes hashed again from disk first; a 200 to a range request starts over.
///
/// Memory stays bounded by the transport's chunk size: the package is never held whole.
struct PackageDownloader: Sendable {
    let transport: HTTPTransport
    let storage: SkinStorage

    /// Downloads and checks `entry`'s bytes; returns the complete, verified file.
    ///
    /// - Throws: `network` (the part is kept for resuming), `server` (an error status; `refused` is set when it is
    ///   a 4xx other than 408 and 429, the server's final word on this package), `size` (more or fewer bytes than
    ///   the answer said; the part is removed), `hash` (SHA-256 differs; the part is removed), `disk`.
    func download(_ entry: PackageEntry, from url: URL, refused: LockedBox<Bool>) async throws(LiveryError) -> URL {
        let part = storage.partFile(entry.sign)
        let etagFile = storage.etagFile(entry.sign)
        let sink = try PartSink(file: part, expectedSize: entry.size)
        var request = URLRequest(url: url)
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let storedETag = (try? String(contentsOf: etagFile, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
        let resumeFrom = sink.count
        if resumeFrom > 0, resumeFrom < entry.size, let storedETag {
            request.setValue("bytes=\(resumeFrom)-", forHTTPHeaderField: "Range")
            request.setValue(storedETag, forHTTPHeaderField: "If-Range")
        } else if resumeFrom > 0, resumeFrom < entry.size {
            try sink.restart()
        }
        if sink.count < entry.size {
            do {
                _ = try await transport.send(
                    request,
                    onHead: { head throws(LiveryError) in
                        switch head.status {
                        case 206:
                            guard let range = head.field("Content-Range"), range.hasPrefix("bytes \(sink.count)-")
                            else {
                                throw LiveryError(.server, "the package's Content-Range does not continue the download")
                            }
                        case 200:
                            try sink.restart()
                            if let etag = head.field("ETag") {
                                try? Data(etag.utf8).write(to: etagFile, options: .atomic)
                            }
                        default:
                            if (400..<500).contains(head.status), head.status != 408, head.status != 429 {
                                refused.withLock { $0 = true }
                            }
                            throw LiveryError(.server, "the package download answered HTTP \(head.status)")
                        }
                    }, onChunk: { chunk throws(LiveryError) in try sink.append(chunk) })
            } catch {
                sink.close()
                if error.code != .network { Self.discard(part, etagFile) }
                throw error
            }
        }
        sink.close()
        guard sink.count == entry.size else {
            Self.discard(part, etagFile)
            throw LiveryError(.size, "the package has \(sink.count) bytes, the answer said \(entry.size)")
        }
        let digest = sink.digest()
        guard digest == entry.sha256 else {
            Self.discard(part, etagFile)
            throw LiveryError(.hash, "the package's SHA-256 is \(digest), the answer said \(entry.sha256)")
        }
        return part
    }

    static func discard(_ part: URL, _ etag: URL) {
        try? FileManager.default.removeItem(at: part)
        try? FileManager.default.removeItem(at: etag)
    }
}

/// The part file being written and the hash of every byte in it. Used by one transfer at a time, on the
/// transport's serial queue (and before and after the transfer by the caller), so its lock is never contended.
private final class PartSink: @unchecked Sendable {
    private let lock = NSLock()
    private let file: URL
    private let expectedSize: Int64
    private var handle: FileHandle?
    private var hasher = SHA256()
    private(set) var count: Int64 = 0

    /// Opens `file` (created if missing) and hashes what it already holds; a part longer than expected is dropped.
    init(file: URL, expectedSize: Int64) throws(LiveryError) {
        self.file = file
        self.expectedSize = expectedSize
        let files = FileManager.default
        do {
            if !files.fileExists(atPath: file.path) { _ = files.createFile(atPath: file.path, contents: nil) }
            let reader = try FileHandle(forReadingFrom: file)
            defer { try? reader.close() }
            while let chunk = try reader.read(upToCount: 1 << 16), !chunk.isEmpty {
                count += Int64(chunk.count)
                hasher.update(data: chunk)
                if count > expectedSize { break }
            }
            let writer = try FileHandle(forWritingTo: file)
            handle = writer
            if count > expectedSize {
                try writer.truncate(atOffset: 0)
                count = 0
                hasher = SHA256()
            } else {
                try writer.seekToEnd()
            }
        } catch {
            throw LiveryError.disk("cannot open", file.path, error)
        }
    }

    func restart() throws(LiveryError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try handle?.truncate(atOffset: 0)
        } catch {
            throw LiveryError.disk("cannot truncate", file.path, error)
        }
        count = 0
        hasher = SHA256()
    }

    func append(_ chunk: Data) throws(LiveryError) {
        lock.lock()
        defer { lock.unlock() }
        guard count + Int64(chunk.count) <= expectedSize else {
            throw LiveryError(.size, "the package is longer than the \(expectedSize) bytes the answer said")
        }
        do {
            try handle?.write(contentsOf: chunk)
        } catch {
            throw LiveryError.disk("cannot write", file.path, error)
        }
        hasher.update(data: chunk)
        count += Int64(chunk.count)
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        try? handle?.close()
        handle = nil
    }

    func digest() -> String {
        lock.lock()
        defer { lock.unlock() }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
