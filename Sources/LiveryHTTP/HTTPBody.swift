/// The content of a response.
public enum HTTPBody: Sendable, Equatable {
    /// No content (`Content-Length: 0`).
    case empty
    /// Content held in memory, sent as is.
    case bytes([UInt8])
    /// `length` bytes of the regular file at `path` starting at `offset`, streamed with `sendfile` and never read
    /// whole into memory. The server opens the file when it sends the response; if it is missing, not a regular
    /// file or shorter than `offset + length` at that moment, the client gets a 500 instead (and the log says why).
    case file(path: String, offset: UInt64, length: UInt64)
    /// As `file`, for a file whose content at `path` never changes while it exists (it is only ever replaced by
    /// `rename` or removed): the server keeps it open across responses in its `OpenFileCache`, checking at most
    /// once a second that the path still names the same file.
    case immutableFile(path: String, offset: UInt64, length: UInt64)

    /// The number of content bytes, which the server sends as `Content-Length`.
    public var length: UInt64 {
        switch self {
        case .empty: 0
        case .bytes(let bytes): UInt64(bytes.count)
        case .file(_, _, let length), .immutableFile(_, _, let length): length
        }
    }
}
