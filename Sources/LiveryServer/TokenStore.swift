import Foundation
import LiveryCrypto
import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who made an admin request: the name and role of the token it carried.
public struct AdminPrincipal: Sendable, Equatable {
    public let name: String
    public let role: AdminRole
}

/// The outcome of checking an `Authorization` header.
public enum Authentication: Sendable, Equatable {
    /// A known token.
    case authenticated(AdminPrincipal)
    /// No `Authorization` header.
    case missing
    /// An `Authorization` header that is not `Bearer <token>`.
    case malformed
    /// A well-formed bearer token that matches no line of the tokens file.
    case unknownToken
}

/// The admin tokens, loaded from the tokens file and re-read when it changes.
///
/// Reloading: `reload()` re-reads at once (the server calls it on SIGHUP). Besides, each `authenticate` call
/// checks the file with one `stat` when `checkInterval` has passed since the last check (default 1 s), and
/// re-reads it when its device, inode, size, modification or change time differ, so a revoked token stops
/// working within a second of the edit, without a restart. A missing or unreadable file after startup revokes
/// every token (and is logged); lines that do not parse are logged and ignored.
///
/// Secrets: the presented token is hashed with SHA-256 and compared with every listed digest using
/// `Secrets.constantTimeEquals`, always all of them, so timing reveals neither which digest nor how much of one
/// matched. Tokens are never logged, and neither are the file's digests.
public final class TokenStore: Sendable {
    /// The tokens file's path.
    public let path: String
    private let checkInterval: Duration
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var entries: [TokenEntry]
        var identity: FileIdentity?
        var lastCheck: ContinuousClock.Instant
    }

    /// What identifies one version of the file cheaply.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    /// Loads the file.
    ///
    /// - Parameters:
    ///   - checkInterval: the least time between two `stat` checks for changes; `.zero` checks on every request.
    /// - Throws: `TokenFileError.unreadable` if the file cannot be read now (a configured but missing tokens file
    ///   is a deployment mistake that should stop the start, not silently lock everyone out).
    public init(path: String, checkInterval: Duration = .seconds(1), logger: Logger) throws(TokenFileError) {
        self.path = path
        self.checkInterval = checkInterval
        self.logger = logger
        let identity = Self.identity(of: path)
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        let file = TokenFile.parse(String(decoding: data, as: UTF8.self))
        state = Mutex(State(entries: file.entries, identity: identity, lastCheck: ContinuousClock.now))
        report(file, isBlank: Self.isBlank(data), reason: "startup")
    }

    /// The number of usable tokens now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Re-reads the file now; `reason` goes into the log line (such as `SIGHUP`).
    public func reload(reason: String) {
        let identity = Self.identity(of: path)
        let file: TokenFile
        var isBlank = true
        if let data = FileManager.default.contents(atPath: path) {
            file = TokenFile.parse(String(decoding: data, as: UTF8.self))
            isBlank = Self.isBlank(data)
        } else {
            logger.error(
                "tokens file cannot be read; every admin token is revoked until it can",
                metadata: ["tokens.file": "\(path)"])
            file = TokenFile(entries: [], problems: [])
        }
        state.withLock {
            $0.entries = file.entries
            $0.identity = identity
            $0.lastCheck = ContinuousClock.now
        }
        report(file, isBlank: isBlank, reason: reason)
    }

    /// Re-reads the file if `checkInterval` has passed since the last check and the file changed since it was read.
    public func reloadIfChanged() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> FileIdentity?? in
            guard now - state.lastCheck >= checkInterval else { return nil }
            state.lastCheck = now
            return .some(state.identity)
        }
        guard case .some(let known) = due else { return }
        if Self.identity(of: path) != known { reload(reason: "file changed") }
    }

    /// Checks an `Authorization` header value (nil when absent).
    public func authenticate(_ authorization: String?) -> Authentication {
        reloadIfChanged()
        guard let authorization else { return .missing }
        guard let token = Self.bearerToken(authorization) else { return .malformed }
        let presented = SHA256.hash(Array(token.utf8))
        let entries = state.withLock { $0.entries }
        var found: TokenEntry?
        for entry in entries where Secrets.constantTimeEquals(entry.digest, presented) && found == nil {
            found = entry
        }
        guard let found else { return .unknownToken }
        return .authenticated(AdminPrincipal(name: found.name, role: found.role))
    }

    /// The token of `Bearer <token>` (RFC 6750 §2.1: the scheme is case-insensitive, the token is a b64token),
    /// or nil when the value is not that.
    static func bearerToken(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.count > 7, bytes.count <= 1024,
            String(decoding: bytes[0..<6], as: UTF8.self).lowercased() == "bearer", bytes[6] == UInt8(ascii: " ")
        else { return nil }
        var token = bytes[7...].drop { $0 == UInt8(ascii: " ") }
        while token.last == UInt8(ascii: " ") { token = token.dropLast() }
        guard !token.isEmpty else { return nil }
        var seenPadding = false
        for byte in token {
            let isTokenCharacter: Bool
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                isTokenCharacter = !seenPadding
            case UInt8(ascii: "="):
                seenPadding = true
                isTokenCharacter = true
            default:
                isTokenCharacter = false
            }
            guard isTokenCharacter else { return nil }
        }
        return String(decoding: token, as: UTF8.self)
    }

    /// Logs each ignored line, an error when a file with content yields no token (a wrong format, such as a
    /// whole file read as one comment, must not pass as "no tokens configured"), and the count.
    private func report(_ file: TokenFile, isBlank: Bool, reason: String) {
        for problem in file.problems {
            logger.error("tokens file line ignored", metadata: ["tokens.file": "\(path)", "problem": "\(problem)"])
        }
        if file.entries.isEmpty && !isBlank {
            logger.error(
                "tokens file is not empty but holds no usable token; every admin request will be refused",
                metadata: [
                    "tokens.file": "\(path)", "tokens.ignoredLines": "\(file.problems.count)",
                    "fix": "one token per line: NAME ROLE SHA256HEX (livery token create prints the line)"
                ])
        }
        logger.info(
            "admin tokens loaded",
            metadata: ["tokens.file": "\(path)", "tokens.count": "\(file.entries.count)", "reason": "\(reason)"])
    }

    /// Whether `data` holds nothing but spaces, tabs and line ends.
    private static func isBlank(_ data: Data) -> Bool {
        data.allSatisfy {
            $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n")
        }
    }

    private static func identity(of path: String) -> FileIdentity? {
        guard let info = try? SystemPath.status(path) else { return nil }
        return FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: info.st_mtim, changed: info.st_ctim)
    }
}

/// Why the tokens file could not be used at startup.
public enum TokenFileError: Error, Equatable, CustomStringConvertible {
    /// The file does not exist or cannot be read.
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "tokens file '\(path)' cannot be read (--tokens-file / LIVERY_TOKENS_FILE)"
        }
    }
}
