import LiveryCrypto
import LiveryProtocol

/// What an admin token may do.
public enum AdminRole: String, Sendable, CaseIterable {
    /// Reads only: `GET` and `HEAD`.
    case viewer
    /// Everything.
    case editor

    /// Whether a token with this role may make a request with `method` (`GET`, `PUT`, …).
    public func allows(method: String) -> Bool {
        switch self {
        case .editor: true
        case .viewer: method == "GET" || method == "HEAD"
        }
    }
}

/// One token line: who, with which role, and the SHA-256 of the token (never the token itself).
public struct TokenEntry: Sendable, Equatable {
    /// The token's name, recorded as the actor of every change made with it. Matches `TokenFile.isValidName`.
    public let name: String
    public let role: AdminRole
    /// The 32-byte SHA-256 digest of the token.
    public let digest: [UInt8]
}

/// The tokens file: one token per line, `NAME ROLE SHA256HEX`, separated by spaces or tabs; `#` starts a comment
/// that runs to the end of the line; blank lines are ignored. A line ends at LF, with an optional CR before it
/// (a file written on Windows reads the same).
///
/// - `NAME`: 1–64 characters of `A-Z a-z 0-9 . _ -` (it becomes the audit log's actor).
/// - `ROLE`: `viewer` (GET/HEAD) or `editor` (everything).
/// - `SHA256HEX`: the 64-character hex SHA-256 of the token's UTF-8 bytes (case-insensitive).
///
/// A line that breaks a rule is reported in `problems` and ignored, and the other lines still count: removing a
/// leaked token's line must revoke it even if another line has a typo. A digest listed twice keeps its first line.
public struct TokenFile: Sendable, Equatable {
    /// A line that was ignored, and why.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// 1-based line number.
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public let entries: [TokenEntry]
    public let problems: [Problem]

    /// Parses the file's text. Never fails: bad lines become `problems`.
    public static func parse(_ text: String) -> TokenFile {
        var entries: [TokenEntry] = []
        var problems: [Problem] = []
        var digests = Set<[UInt8]>()
        // Lines are split on the LF byte, not on Characters: Swift reads CR LF as one Character, so a file written
        // on Windows would otherwise be one long line (all a comment if it starts with one).
        for (index, rawLine) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            let number = index + 1
            let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            let content = line.prefix { $0 != UInt8(ascii: "#") }
            let fields = content.split { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                .map { String(decoding: $0, as: UTF8.self) }
            if fields.isEmpty { continue }
            guard fields.count == 3 else {
                problems.append(
                    Problem(line: number, reason: "expected NAME ROLE SHA256HEX, found \(fields.count) fields"))
                continue
            }
            let name = fields[0]
            guard isValidName(name) else {
                problems.append(Problem(line: number, reason: "the name must be 1-64 characters of A-Z a-z 0-9 . _ -"))
                continue
            }
            guard let role = AdminRole(rawValue: fields[1]) else {
                problems.append(Problem(line: number, reason: "the role must be viewer or editor"))
                continue
            }
            guard let digest = Hex.decode(fields[2].lowercased()), digest.count == 32 else {
                problems.append(
                    Problem(line: number, reason: "the digest must be 64 hex characters (the SHA-256 of the token)"))
                continue
            }
            guard digests.insert(digest).inserted else {
                problems.append(Problem(line: number, reason: "this digest is already listed on an earlier line"))
                continue
            }
            entries.append(TokenEntry(name: name, role: role, digest: digest))
        }
        return TokenFile(entries: entries, problems: problems)
    }

    /// Whether `name` is usable as a token name: 1–64 characters of `A-Z a-z 0-9 . _ -`.
    public static func isValidName(_ name: String) -> Bool { PlainName.isValid(name) }

    /// Prefix of tokens made by `newToken()`, so a leaked one is recognisable in a secret scanner.
    public static let tokenPrefix = "livery_"

    /// A new random token: `livery_` followed by 64 hex characters (256 bits from OpenSSL's CSPRNG).
    public static func newToken() throws(SecretsError) -> String {
        tokenPrefix + Hex.encode(try Secrets.randomBytes(count: 32))
    }

    /// The tokens-file line for `token`.
    public static func line(name: String, role: AdminRole, token: String) -> String {
        "\(name) \(role.rawValue) \(SHA256.hexHash(Array(token.utf8)))"
    }
}
