import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A release that recurs (issue 27) on three replicas over one PostgreSQL: a change to its rule (`recurs`) or to one
/// year's occurrence (`occurrences`: own dates, or skipped) made through one replica is served by the polls of the
/// other two within 1 s, the bound docs/OPERATING.md states for any release change ("Changes reach every replica
/// within a second"), as ReplicaServeTests checks it for pushes and the kill switch.
@Suite(.postgresServer, .hangGuard) struct ReplicaRecurrenceTests {
    @Test func aChangedRuleOrOccurrenceThroughOneReplicaIsServedByTheOtherTwoWithinOneSecond() async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri(database: try await server.createDatabase())
        // A Gregorian rule anchored on today (UTC): in force now, from yesterday to the end of tomorrow.
        let today = Self.utcDay(Date())
        let workspace = try AdminWorkspace()
        let rule =
            #"{"calendar": "gregorian", "month": \#(today.month), "day": \#(today.day), "startOffsetDays": -1, "endOffsetDays": 1, "ifMissing": "lastDay"}"#
        try AdminWorkspace.write(
            AdminWorkspace.tinySkin(id: "lantern", marker: "l1", release: #"{"recurs": \#(rule), "timeZone": "UTC"}"#),
            into: workspace.skins + "/lantern")
        try await blocking {
            let replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
            for replica in replicas { try AdminCall(port: replica.port).waitUntilReady() }
            let admin = AdminCall(port: replicas[0].port)
            let first = try #require(Self.served(port: replicas[0].port))
            #expect(first.hasPrefix("lantern "), "\(first)")

            // Each change through the first replica: it serves the change when it answers, the others within 1 s
            // (checked at 5 s: the test run's load stretches it).
            let year = String(today.year)
            let changes: [(what: String, patch: String)] = [
                ("the rule ends a day later", #"{"recurs": {"endOffsetDays": 2}}"#),
                (
                    "\(year) has its own dates",
                    #"{"occurrences": {"\#(year)": {"startsAt": "\#(Self.dayText(today, plus: -2))T06:00:00", "endsAt": "\#(Self.dayText(today, plus: 3))T18:00:00"}}}"#
                ),
                ("\(year) is skipped", #"{"occurrences": {"\#(year)": "skip"}}"#),
                ("\(year) follows the rule again", #"{"occurrences": {"\#(year)": null}}"#)
            ]
            var before = first
            for change in changes {
                let answer = try admin.json("PATCH", "/admin/v1/skins/lantern/release", body: change.patch)
                #expect(answer.status == 200, "\(change.what): \(answer)")
                let expected = try #require(Self.served(port: replicas[0].port))
                #expect(expected != before, "\(change.what): the first replica still serves \(expected)")
                for replica in replicas[1...] {
                    let served = Self.timeUntilServed(expected, port: replica.port, within: 10)
                    #expect(
                        served.map { $0 < 5 } == true,
                        "\(change.what): \(expected.isEmpty ? "no skin" : expected) served after \(served.map { "\($0) s" } ?? "never")"
                    )
                }
                before = expected
            }
            for replica in replicas { #expect(try replica.stop(signal: SIGTERM) == 0) }
        }
    }

    /// "skinId startsAt endsAt" of a poll on `port` ("" for no skin), or nil when the answer is not a 200.
    static func served(port: Int) -> String? {
        guard let response = try? TestClient(port: port, timeout: 5).get(Replicas.poll), response.status == 200,
            let body = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { return nil }
        guard let skin = body["skinId"] as? String, !skin.isEmpty else { return "" }
        return [skin, body["startsAt"] as? String ?? "", body["endsAt"] as? String ?? ""].joined(separator: " ")
    }

    /// Polls `port` until it serves `expected` (see `served`), for at most `seconds`; the time it took, or nil.
    static func timeUntilServed(_ expected: String, port: Int, within seconds: Double) -> Double? {
        let started = Date()
        while Date().timeIntervalSince(started) < seconds {
            if served(port: port) == expected { return Date().timeIntervalSince(started) }
            usleep(5_000)
        }
        return nil
    }

    static func utcDay(_ date: Date) -> (year: Int, month: Int, day: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return (parts.year ?? 2000, parts.month ?? 1, parts.day ?? 1)
    }

    /// `YYYY-MM-DD` of `days` days from `day`.
    static func dayText(_ day: (year: Int, month: Int, day: Int), plus days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let start = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day)) ?? Date()
        let moved = utcDay(start.addingTimeInterval(Double(days) * 86_400))
        return String(format: "%04d-%02d-%02d", moved.year, moved.month, moved.day)
    }
}
