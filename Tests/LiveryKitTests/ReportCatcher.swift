import Foundation

/// The capturing server for outcome reports: a `TamperingProxy` that answers `POST /api/v1/reports` itself (202
/// by default, or the answer a test sets) and keeps every request. In front of `livery serve` it forwards the rest;
/// alone, it answers every other request 404 `unknown_app`, so a client applies no skin and asks nothing else for an
/// hour.
final class ReportCatcher: @unchecked Sendable {
    typealias Response = TamperingProxy.Response
    static let accepted = Response(
        status: 202, headers: [("Content-Type", "application/json")], body: Array(#"{"accepted":1,"ignored":0}"#.utf8))

    let proxy: TamperingProxy
    // Invariant: `answer` is only touched under `lock`.
    private let lock = NSLock()
    private var answer = ReportCatcher.accepted

    init(upstreamPort: Int? = nil) throws {
        proxy = try TamperingProxy(upstreamPort: upstreamPort ?? 1)
        proxy.answerLocally { [lock, unowned self] request in
            if request.path.hasPrefix("/api/v1/reports") { return lock.withLock { self.answer } }
            guard upstreamPort == nil else { return nil }
            return Response(
                status: 404, headers: [("Content-Type", "application/json")],
                body: Array(#"{"error":{"code":"unknown_app","message":"no skin is released for this app"}}"#.utf8))
        }
    }

    var url: String { proxy.url }

    /// Answers the following report requests with `status` (and `Retry-After` when given).
    func answer(
        _ status: Int, retryAfter: Int? = nil,
        body: String = #"{"error":{"code":"invalid","message":"reports[0].stage: unknown"}}"#
    ) {
        var response = Response(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        if status == 202 { response = Self.accepted }
        lock.withLock { answer = response }
    }

    /// Every report request so far.
    var posts: [TamperingProxy.Request] { proxy.requests.filter { $0.path.hasPrefix("/api/v1/reports") } }

    /// The body of every report request, decoded.
    func bodies() throws -> [[String: Any]] {
        try posts.map { post in
            guard let body = try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: Any] else {
                throw KitTestError("a report body is not a JSON object: \(String(decoding: post.body, as: UTF8.self))")
            }
            return body
        }
    }

    /// The reports of every request, in order, as (skinSign, outcome, stage).
    func reports() throws -> [Outcome] {
        try bodies().flatMap { ($0["reports"] as? [[String: Any]]) ?? [] }.map(Outcome.init)
    }

    struct Outcome: Equatable, CustomStringConvertible {
        var sign: String
        var outcome: String
        var stage: String?

        init(_ sign: String, _ outcome: String, _ stage: String? = nil) {
            self.sign = sign
            self.outcome = outcome
            self.stage = stage
        }

        init(_ report: [String: Any]) {
            self.init(
                report["skinSign"] as? String ?? "?", report["outcome"] as? String ?? "?", report["stage"] as? String)
        }

        var description: String { "\(sign) \(outcome)" + (stage.map { " at \($0)" } ?? "") }
    }
}
