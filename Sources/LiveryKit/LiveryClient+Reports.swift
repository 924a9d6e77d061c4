import Foundation
import LiveryJSON
import SkinModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What this launch's report request came to (`LiveryClient.sendReports()`).
public enum ReportDelivery: Sendable, Equatable {
    /// No request: nothing waits, reports are turned off, or the server's `Retry-After` has not passed.
    case notSent
    /// The server took them (2xx, `202 Accepted`): they left the queue.
    case delivered(count: Int)
    /// The server refused them with a 4xx other than 408 and 429: they were dropped, so a report the server will
    /// never take does not come back at every launch. `message` is the error body's `code: message`, if any.
    case refused(count: Int, status: Int, message: String)
    /// Not delivered (no network, 408, 429, 5xx): kept, and sent at a later launch once `Retry-After` has passed.
    case kept(count: Int, reason: String)
}

/// This launch's one report request, started by the first trigger that finds something to send.
struct LaunchReport: Sendable {
    /// A refresh has ended in this launch.
    var refreshed = false
    var sending: Task<ReportDelivery, Never>?
}

/// Outcome reports: each skin's outcome on this install, queued in `reports.json` and sent to
/// `POST /api/v1/reports` at most once per launch. Nothing here can fail or delay applying a skin: recording
/// ignores a full disk, and sending happens in its own task once the skin is applied.
extension LiveryClient {
    /// Sends the reports waiting in the queue, unless this launch has sent them already: then it returns what that
    /// request came to (waiting for it if it is still in flight). A short-lived process calls it after
    /// `markApplied()`, before it quits (`livery-phone` does); an app need not call it at all.
    ///
    /// Otherwise the launch's request goes by itself: when the first refresh ends, or, when that refresh left a skin
    /// awaiting confirmation, when `markApplied()` confirms it (so its `applied` goes in the same request).
    public func sendReports() async -> ReportDelivery {
        guard let task = startReport() else { return .notSent }
        return await task.value
    }

    /// Outcomes waiting to be sent, oldest first.
    var pendingReports: [OutcomeReport] { reports?.withLock { $0.pending } ?? [] }

    /// Queues `sign`'s outcome (`stage` nil: applied) and saves the queue. A queue that cannot be saved (a full disk)
    /// still sends from memory; the outcome is lost only if the app also quits first.
    func record(_ sign: String, stage: OutcomeReport.Stage?) {
        guard let reports, !sign.isEmpty else { return }
        let report = OutcomeReport(skinSign: sign, stage: stage, at: configuration.clock())
        let storage = self.storage
        reports.withLock { queue in
            // Saved under the lock, so two outcomes recorded at once are written in order.
            if queue.record(report) { try? storage.saveReports(queue) }
        }
    }

    /// A package's failure: queued for `entry`'s sign at `stage` (nil: a fault of the network or the device, not of
    /// the skin, which is not reported), and returned to be thrown.
    func reported(_ error: LiveryError, _ entry: PackageEntry, at stage: OutcomeReport.Stage?) -> LiveryError {
        if let stage { record(entry.sign, stage: stage) }
        return error
    }

    /// After every refresh: the launch's reports go now, unless a skin awaits `markApplied()` (its outcome goes
    /// with them then).
    func refreshEnded() {
        let awaiting = state.withLock { $0.unconfirmed != nil }
        launchReport.withLock { $0.refreshed = true }
        if !awaiting { _ = startReport() }
    }

    /// After `markApplied()`: once a refresh has ended, the launch's reports go.
    func appliedConfirmed() {
        if launchReport.withLock({ $0.refreshed }) { _ = startReport() }
    }

    /// This launch's request: the one already started, or a new one for the oldest reports; nil when there is
    /// nothing to send (or reports are off, or `Retry-After` has not passed).
    private func startReport() -> Task<ReportDelivery, Never>? {
        guard let reports else { return nil }
        let now = configuration.clock()
        let app = configuration.appID, platform = configuration.platform.rawValue, version = configuration.appVersion
        return launchReport.withLock { launch -> Task<ReportDelivery, Never>? in
            if let sending = launch.sending { return sending }
            let queue = reports.withLock { $0 }
            if let wait = queue.retryAfter, now < wait { return nil }
            guard let batch = queue.batch(app: app, platform: platform, appVersion: version) else { return nil }
            let task = Task { await self.deliver(batch.body, batch.reports) }
            launch.sending = task
            return task
        }
    }

    /// Sends one batch and settles the queue by the answer.
    private func deliver(_ body: [UInt8], _ sent: [OutcomeReport]) async -> ReportDelivery {
        let count = sent.count
        let head: HTTPTransport.Head
        let answer: [UInt8]
        do throws(LiveryError) {
            var request = URLRequest(url: try endpoint("/api/v1/reports", query: ""))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body)
            (head, answer) = try await transport.get(request, limit: 64 << 10)
        } catch {
            return .kept(count: count, reason: error.description)
        }
        switch head.status {
        case 200..<300:
            saveReports {
                $0.settle(sent)
                $0.retryAfter = nil
            }
            return .delivered(count: count)
        case 400..<500 where head.status != 408 && head.status != 429:
            saveReports { $0.settle(sent) }
            return .refused(count: count, status: head.status, message: Self.errorSummary(answer))
        case 408, 429, 500..<600:
            let wait = Self.retryAfter(head.field("Retry-After"), now: configuration.clock())
            saveReports { $0.retryAfter = wait }
            return .kept(
                count: count,
                reason: "the server answered HTTP \(head.status)"
                    + (wait.map { "; retry after \(ISO8601Instant.format($0))" } ?? ""))
        default:
            return .kept(count: count, reason: "the server answered HTTP \(head.status)")
        }
    }

    private func saveReports(_ change: (inout StoredReports) -> Void) {
        let storage = self.storage
        reports?.withLock { queue in
            change(&queue)
            try? storage.saveReports(queue)
        }
    }

    /// `code: message` of a JSON error body (`{"error":{"code","message"}}`), or its first bytes as text.
    static func errorSummary(_ body: [UInt8]) -> String {
        if let error = (try? JSONValue.parse(body))?.objectValue?["error"]?.objectValue {
            return [error["code"]?.stringValue, error["message"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
        }
        return String(decoding: body.prefix(200), as: UTF8.self)
    }
}
