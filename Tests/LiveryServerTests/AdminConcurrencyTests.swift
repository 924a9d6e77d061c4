import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import LiveryServer

/// Clients polling under load while releases flip: every answer is the old or the new skin, never an error.
@Suite struct AdminConcurrencyTests {
    /// Tells the pollers to finish.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .acquiring) }
        func set() { flag.store(true, ordering: .releasing) }
    }

    /// What one polling client saw.
    struct Tally: Sendable {
        var polls = 0
        var signs: [String: Int] = [:]
        var problems: [String] = []
    }

    @Test(.hangGuard)
    func pollsDuringReleaseFlipsSeeTheOldOrTheNewSkinOnly() async throws {
        let harness = try await LiveryHarness(transport: .socket)
        defer { harness.removeFiles() }
        let one = try #require(AdminReleaseTests.standardSign(try await harness.uploadTiny(marker: "one")))
        let two = try #require(AdminReleaseTests.standardSign(try await harness.uploadTiny(marker: "two")))
        #expect(one != two)
        try await harness.release("tiny", #""version": 1"#)

        let stop = StopFlag()
        let port = harness.port
        let pollers = (0..<6).map { _ in
            Task {
                try await blocking { () throws -> Tally in
                    var tally = Tally()
                    var client = try TestClient(port: port)
                    // Bounded: the flips below end long before this many polls.
                    while !stop.isSet && tally.polls < 200_000 {
                        let response: TestResponse
                        do {
                            response = try client.get(LiveryHarness.poll)
                        } catch {
                            tally.problems.append("\(error)")
                            client = try TestClient(port: port)
                            continue
                        }
                        tally.polls += 1
                        let sign =
                            (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?[
                                "skinSign"] as? String
                        if response.status != 200 || (sign != one && sign != two) {
                            tally.problems.append("\(response.status) \(response.text)")
                        } else if let sign {
                            tally.signs[sign, default: 0] += 1
                        }
                        if response.closesConnection { client = try TestClient(port: port) }
                    }
                    return tally
                }
            }
        }

        // Flip 40 times; each 2xx must already be what a fresh poll gets.
        for flip in 0..<40 {
            let version = flip % 2 == 0 ? 2 : 1
            try await harness.release("tiny", #""version": \#(version)"#)
            let now = try await harness.poll()["skinSign"] as? String
            #expect(now == (version == 2 ? two : one), "flip \(flip): the answer after the 2xx is the new release")
        }
        stop.set()

        var total = Tally()
        for poller in pollers {
            let tally = try await poller.value
            #expect(tally.polls > 0)
            total.polls += tally.polls
            total.problems += tally.problems
            for (sign, count) in tally.signs { total.signs[sign, default: 0] += count }
        }
        #expect(total.polls >= 40 * 6, "pollers kept polling through the flips (\(total.polls) polls)")
        #expect(total.problems.isEmpty, "\(total.problems.prefix(5))")
        #expect(Set(total.signs.keys).isSubset(of: [one, two]))
        #expect(total.signs.count == 2, "pollers saw both releases: \(total.signs)")
        await harness.stop()
    }
}
