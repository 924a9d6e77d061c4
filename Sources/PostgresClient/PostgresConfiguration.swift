import Foundation

/// Where and how to connect: a libpq connection URI handed to libpq as it is, plus where a password may come from.
///
/// The URI may be `postgres://` or `postgresql://` with anything libpq accepts, so a Unix-socket folder works as
/// `postgresql:///livery?host=/run/postgresql`. The password is taken, last one winning, from: `PGPASSWORD` (libpq
/// reads it), the URI, then `passwordFile` when set. The password never appears in `description`,
/// `redactedURI` or any `PostgresError`: libpq's messages are scrubbed of it too.
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// The connection URI, exactly as given.
    public var uri: String
    /// A file holding the password (a mounted secret): its content, without one trailing newline, is the password.
    /// Default nil.
    public var passwordFile: String?
    /// `application_name` shown in `pg_stat_activity` unless the URI sets one. Default "livery".
    public var applicationName: String
    /// Seconds libpq waits for a connection unless the URI sets `connect_timeout`. Default 10.
    public var connectTimeoutSeconds: Int
    /// Over TCP, how long sent data may stay unacknowledged before the connection counts as broken (libpq's
    /// `tcp_user_timeout`, with TCP keepalives after 5 s idle, every 2 s, 3 probes), unless the URI sets them: a
    /// server that became unreachable without closing the connection (a network partition, a vanished host) is
    /// noticed within seconds rather than the system's hours. Ignored on Unix sockets. Default 10 s.
    public var tcpTimeoutSeconds: Int = 10

    /// Checks the scheme (and that no NUL byte would cut the URI short); everything else is left to libpq at
    /// connect time.
    public init(
        uri: String, passwordFile: String? = nil, applicationName: String = "livery", connectTimeoutSeconds: Int = 10
    ) throws(PostgresError) {
        guard uri.hasPrefix("postgres://") || uri.hasPrefix("postgresql://") else {
            throw .invalidConfiguration(
                "the store URI must start with postgres:// or postgresql:// (got \(Self.redact(uri).prefix(40)))")
        }
        guard !uri.utf8.contains(0), !applicationName.utf8.contains(0) else {
            throw .invalidConfiguration("the store URI holds a NUL byte, which libpq would cut it at")
        }
        self.uri = uri
        self.passwordFile = passwordFile
        self.applicationName = applicationName
        self.connectTimeoutSeconds = connectTimeoutSeconds
    }

    /// The URI with any password (in the user part or a `password=` parameter) replaced by `***`.
    public var redactedURI: String { Self.redact(uri) }

    public var description: String {
        redactedURI + (passwordFile.map { " (password file \($0))" } ?? "")
    }

    /// libpq's keywords and values for `PQconnectdbParams` (with `expand_dbname`): defaults first, then the URI,
    /// then the password file's content, as libpq lets later entries win. Also returns the secrets to scrub from
    /// messages. Reads the password file.
    func connectionParameters() throws(PostgresError) -> (keywords: [String], values: [String], secrets: [String]) {
        var keywords = [
            "application_name", "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
            "keepalives_count", "tcp_user_timeout", "dbname"
        ]
        var values = [
            applicationName, String(connectTimeoutSeconds), "1", "5", "2", "3", String(tcpTimeoutSeconds * 1000), uri
        ]
        var secrets = Self.passwords(in: uri)
        if let passwordFile {
            let contents: String
            do {
                contents = try String(contentsOfFile: passwordFile, encoding: .utf8)
            } catch {
                throw .invalidConfiguration("cannot read the password file \(passwordFile)")
            }
            var password = Substring(contents)
            if password.hasSuffix("\r\n") {
                password = password.dropLast(2)
            } else if password.hasSuffix("\n") {
                password = password.dropLast()
            }
            guard !password.isEmpty, !password.contains("\0") else {
                throw .invalidConfiguration("the password file \(passwordFile) is empty or holds a NUL byte")
            }
            keywords.append("password")
            values.append(String(password))
            secrets.append(String(password))
        }
        if let environment = ProcessInfo.processInfo.environment["PGPASSWORD"], !environment.isEmpty {
            secrets.append(environment)
        }
        return (keywords, values, secrets)
    }

    /// `uri` with its password replaced by `***`: the `user:password@` part and any `password=` query parameter.
    public static func redact(_ uri: String) -> String {
        var result = uri
        if let schemeEnd = result.range(of: "://") {
            let rest = result[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result.replaceSubrange(result.index(after: colon)..<at, with: "***")
            }
        }
        if let query = result.firstIndex(of: "?") {
            let parameters = result[result.index(after: query)...].split(
                separator: "&", omittingEmptySubsequences: false)
            let redacted = parameters.map { parameter -> String in
                let name = parameter.prefix(while: { $0 != "=" })
                return name.lowercased() == "password" && name.count < parameter.count
                    ? "\(name)=***" : String(parameter)
            }
            result = result[...query] + redacted.joined(separator: "&")
        }
        return result
    }

    /// Every spelling of the URI's passwords that a message could contain: as written and percent-decoded.
    static func passwords(in uri: String) -> [String] {
        var found: [String] = []
        if let schemeEnd = uri.range(of: "://") {
            let rest = uri[schemeEnd.upperBound...]
            let authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                found.append(String(authority[authority.index(after: colon)..<at]))
            }
        }
        if let query = uri.firstIndex(of: "?") {
            for parameter in uri[uri.index(after: query)...].split(separator: "&") {
                let parts = parameter.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "password" { found.append(String(parts[1])) }
            }
        }
        found += found.compactMap { $0.removingPercentEncoding }
        return found.filter { !$0.isEmpty }
    }
}
