import ArgumentParser
import Foundation
import LiveryHTTPClient
import LiveryJSON
import SkinModel
import SystemCalls

/// `--server` for the ops commands (`push`, `release`, `rollback`, `killswitch`, `preview`).
struct ServerOptions: ParsableArguments {
    static let defaultServer = "http://127.0.0.1:8080"

    @Option(
        help:
            "The Livery server, http[s]://HOST[:PORT]. Env LIVERY_SERVER. Default http://127.0.0.1:8080. The admin token comes from LIVERY_TOKEN."
    )
    var server: String?

    @Option(
        help: ArgumentHelp(
            "For https:// servers: trust only the CAs in this PEM file (a private CA) instead of the system's. Env LIVERY_CA_FILE.",
            valueName: "file"))
    var caFile: String?

    /// A session with the server and the token from `LIVERY_TOKEN` (never from a flag: flags show up in `ps`).
    func session(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AdminClientError) -> AdminSession {
        let url = server ?? environment["LIVERY_SERVER"] ?? Self.defaultServer
        var client = HTTPClient(
            server: try AdminClientError.from { () throws(HTTPClientError) in try HTTPClient.Server(parsing: url) })
        client.caFile = caFile ?? environment["LIVERY_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        if let file = client.caFile { try Self.checkReadable(caFile: file) }
        guard let token = environment["LIVERY_TOKEN"], !token.isEmpty else {
            throw .usage(
                "LIVERY_TOKEN is not set: export LIVERY_TOKEN=<token> (make one with `livery token create NAME --role editor`)"
            )
        }
        guard !token.contains(where: { $0 == "\r" || $0 == "\n" || $0 == " " }) else {
            throw .usage("LIVERY_TOKEN holds spaces or line breaks; set it to the token alone")
        }
        return AdminSession(client: client, token: token)
    }
}

extension ServerOptions {
    /// Refuses (exit 2, before any connection) a CA file that does not exist or cannot be read, naming it: OpenSSL
    /// would only say "OpenSSL error 2147483650", and only once connected.
    static func checkReadable(caFile: String) throws(AdminClientError) {
        do throws(SystemCallError) {
            let file = try SystemFile.openForReading(caFile)
            var byte: UInt8 = 0
            _ = try withUnsafeMutableBytes(of: &byte) { buffer throws(SystemCallError) in try file.read(into: buffer) }
        } catch {
            throw .usage(
                "--ca-file \(caFile): the file does not exist or cannot be read (\(error.reason)); "
                    + "pass the PEM file of the CA that signed the server's certificate")
        }
    }
}

/// One authenticated conversation with the admin API.
struct AdminSession {
    let client: HTTPClient
    let token: String

    /// The parsed answer of a successful request.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var json: JSONValue
    }

    /// Sends a request to `/admin/v1` + `path` and returns the JSON answer of a 2xx.
    ///
    /// - Throws: `.rejected` for 4xx (with the server's code, message, field and reason, plus a hint for 401 and
    ///   403), `.serverFailed` for 5xx, `.unreachable` when there is no answer.
    func call(
        _ method: String, _ path: String, json body: JSONValue? = nil, zip: [UInt8]? = nil,
        headers extra: [(String, String)] = []
    ) throws(AdminClientError) -> Answer {
        try checked(request(method, path, json: body, zip: zip, headers: extra))
    }

    /// `answer` if it is a 2xx; otherwise the error `call` throws for it.
    func checked(_ answer: Answer) throws(AdminClientError) -> Answer {
        switch answer.status {
        case 200..<300:
            return answer
        case 400..<500:
            throw .rejected(Self.describe(answer.status, answer.json, hint: Self.hint(answer.status)))
        default:
            throw .serverFailed(
                Self.describe(answer.status, answer.json, hint: "the server failed; its log has the details"))
        }
    }

    /// Sends a request and returns whatever the server answered (any status).
    func request(
        _ method: String, _ path: String, json body: JSONValue? = nil, zip: [UInt8]? = nil,
        headers extra: [(String, String)] = []
    ) throws(AdminClientError) -> Answer {
        var headers = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
        var bytes: [UInt8] = []
        if let body {
            headers.append(("Content-Type", "application/json"))
            bytes = body.serialized(.compact)
        } else if let zip {
            headers.append(("Content-Type", "application/zip"))
            bytes = zip
        }
        let response = try AdminClientError.from { () throws(HTTPClientError) in
            try client.send(method, "/admin/v1" + path, headers: headers + extra, body: bytes)
        }
        let json = (try? JSONValue.parse(response.body)) ?? .null
        return Answer(status: response.status, headers: response.headers, json: json)
    }

    /// `HTTP 412 precondition_failed: … (If-Match: stale …)` from an error body.
    static func describe(_ status: Int, _ json: JSONValue, hint: String?) -> String {
        guard let error = json.objectValue?["error"]?.objectValue else {
            return "the server answered HTTP \(status)" + (hint.map { "; \($0)" } ?? "")
        }
        var text = "HTTP \(status) \(error["code"]?.stringValue ?? "error"): \(error["message"]?.stringValue ?? "")"
        if let details = error["details"]?.objectValue, let field = details["field"]?.stringValue {
            text += "\n  field: \(field)"
            if let reason = details["reason"]?.stringValue { text += "\n  reason: \(reason)" }
        }
        if let hint { text += "\n  fix: \(hint)" }
        return text
    }

    static func hint(_ status: Int) -> String? {
        switch status {
        case 401: "check LIVERY_TOKEN: the token must be listed (as its SHA-256) in the server's tokens file"
        case 403: "this token is a viewer token; changes need an editor token"
        case 404:
            "check the skin id or app (GET /admin/v1/skins lists them) and the --server address; --force acts on an app with no skins yet"
        case 412: "someone changed it meanwhile: read the current state, then retry with the new ETag"
        default: nil
        }
    }
}

/// Runs an ops command body, printing failures as `livery: …` on standard error with the documented exit status.
enum OpsCommand {
    static func run(_ body: () throws(AdminClientError) -> Void) throws {
        do {
            try body()
        } catch {
            CommandInput.writeStandardError(Array("livery: \(error.description)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }

    static func print(_ text: String) {
        CommandInput.writeStandardOutput(Array((text + "\n").utf8))
    }

    /// `value` percent-encoded for a query string.
    static func queryValue(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// One issue of a validation report, as `livery validate` prints it.
    static func render(issue: JSONValue) -> String {
        guard let object = issue.objectValue else { return issue.compactText }
        let file = object["file"]?.stringValue ?? ""
        let pointer = object["pointer"]?.stringValue ?? ""
        var lines = [
            "\(object["severity"]?.stringValue ?? "issue") [\(object["code"]?.stringValue ?? "")] \(file)\(pointer.isEmpty ? "" : "#" + pointer)"
        ]
        if let value = object["value"] { lines.append("  value: \(value.compactText)") }
        lines.append("  \(object["message"]?.stringValue ?? "")")
        lines.append("  fix: \(object["fix"]?.stringValue ?? "")")
        return lines.joined(separator: "\n")
    }
}
