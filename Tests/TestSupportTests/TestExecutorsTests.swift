import Foundation
import Synchronization
import TestSupport
import Testing

/// `.dedicatedThreads` and `ThreadPerJobExecutor`: the marked tests run on threads apart from the cooperative pool,
/// so tests that wait cannot stall the rest of the run.
@Suite(.dedicatedThreads) struct DedicatedThreadsTests {
    @Test func aSynchronousTestInAMarkedSuiteRunsOnTheExecutorsThreads() {
        #expect(onTheExecutor())
    }

    @Test(arguments: [1, 2])
    func eachCaseOfAParameterizedTestDoesToo(_ value: Int) {
        #expect(onTheExecutor(), "case \(value)")
    }

    @Test func anAsyncTestResumesThereAfterEveryAwait() async throws {
        try await Task.sleep(for: .milliseconds(1))
        #expect(onTheExecutor())
        let value = await Task.detached { 7 }.value
        #expect(value == 7 && onTheExecutor())
    }

    /// Three times as many children as the pool has threads, and one more, each wait until all have started: on
    /// the pool they would wait until their deadline (the pool does not grow when its threads block); on threads of
    /// their own every one arrives.
    @Test func moreWaitingChildrenThanThePoolHasThreadsAllRunAtOnce() async {
        #expect(
            await Self.allArrive(3 * ProcessInfo.processInfo.activeProcessorCount + 1, on: ThreadPerJobExecutor.shared))
    }

    /// Whether `count` children on `executor` that each wait (up to 20 s) until all have started all saw that.
    static func allArrive(_ count: Int, on executor: some TaskExecutor) async -> Bool {
        let probe = Probe()
        let results = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        probe.arrived.add(1, ordering: .relaxed)
                        return probe.wait(until: { probe.arrived.load(ordering: .relaxed) == count })
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        return results.count == count && results.allSatisfy { $0 }
    }
}

@Suite struct UnmarkedTests {
    @Test func anUnmarkedTestRunsOnThePool() {
        #expect(!onTheExecutor())
    }
}

/// What the children of a test share.
private final class Probe: Sendable {
    let arrived = Atomic<Int>(0)

    /// Blocks (for up to 20 s) until `condition` holds; whether it did.
    func wait(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while !condition() && Date() < deadline { usleep(1_000) }
        return condition()
    }
}

/// Whether the caller runs on a thread of a `ThreadPerJobExecutor`.
private func onTheExecutor() -> Bool { ThreadPerJobExecutor.isCurrentThreadOne }

/// `blocking`: the work waits off the pool, and is still part of the test that called.
@Suite struct BlockingTests {
    @Test func theWorkRunsOnAThreadOfItsOwnAndTheTestResumesOnThePool() async throws {
        #expect(try await blocking { ThreadPerJobExecutor.isCurrentThreadOne })
        #expect(!ThreadPerJobExecutor.isCurrentThreadOne)
    }

    /// Before, the work ran on a bare `Thread`: an `#expect` there was reported as "Test «unknown»", once per test
    /// then running, and a failure could not be traced to its test.
    @Test func theWorkSeesTheTestThatCalledSoItsExpectationsNameIt() async throws {
        let name = try await blocking { Test.current?.name }
        #expect(name == Test.current?.name)
        #expect(name != nil)
    }

    @Test func anErrorThrownByTheWorkReachesTheCaller() async {
        await #expect(throws: CocoaError.self) { try await blocking { throw CocoaError(.fileNoSuchFile) } }
    }
}
