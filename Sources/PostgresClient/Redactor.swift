/// Replaces each secret in a message with `***` (longest first, so one secret inside another leaves no tail).
struct Redactor: Sendable {
    let secrets: [String]

    init(secrets: [String]) { self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count } }

    func scrub(_ message: String) -> String {
        secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    func scrub(_ error: PostgresError) -> PostgresError {
        switch error {
        case .invalidConfiguration(let message): return .invalidConfiguration(scrub(message))
        case .connectionFailed(let message): return .connectionFailed(scrub(message))
        case .connectionLost(let message): return .connectionLost(scrub(message))
        case .server(var server):
            server.message = scrub(server.message)
            server.detail = server.detail.map(scrub)
            return .server(server)
        case .invalidParameter, .decoding, .closed: return error
        }
    }
}
