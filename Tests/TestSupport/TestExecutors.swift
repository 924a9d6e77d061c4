import Foundation
import Testing

/// A task executor that runs every job it is given on a new thread of its own, apart from Swift's cooperative pool.
///
/// On Linux the pool has as many threads as cores (two on the CI machine), the whole test run shares it, and a
/// thread blocked in a wait is not replaced: while a test run keeps the pool busy, a job queued there can wait past
/// 30 s (one CI run timed an admin request out so). In-process test servers run their asynchronous handlers here
/// (`HTTPServer.Configuration.handlerExecutor`, set by `TestServer`), so they answer promptly however busy the run
/// is, and the `.dedicatedThreads` trait runs tests that wait synchronously here, so they hold no pool thread.
///
/// Invariant: each job is run exactly once, on the thread started for it; no number of jobs waiting at once can
/// starve another. It does not bound how many run: keep it for work that mostly waits.
public final class ThreadPerJobExecutor: TaskExecutor {
    /// The one executor (it keeps no state).
    public static let shared = ThreadPerJobExecutor()

    /// Whether the caller runs on a thread this executor started.
    public static var isCurrentThreadOne: Bool { Thread.current.threadDictionary[marker] != nil }

    private static let marker = "ThreadPerJobExecutor"

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread {
            Thread.current.threadDictionary[Self.marker] = true
            job.runSynchronously(on: executor)
        }.start()
    }
}

/// Runs the tests it marks (on a suite: every test inside it) on `ThreadPerJobExecutor`, off the cooperative pool.
///
/// For suites whose tests wait synchronously (a synchronous test that starts the real binary and waits on its
/// answers holds a pool thread for as long as the binary takes under the run's load); an async test awaits its
/// waits through `blocking` instead, and tests that compute stay on the pool, whose width keeps them from crowding
/// the cores. The test's task keeps its task-local values, so `#expect` and `Test.current` work as anywhere else;
/// child tasks (`async let`, task groups) inherit the preference, while unstructured `Task {}` runs on the pool.
public struct DedicatedThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == DedicatedThreadsTrait {
    /// The marked tests run off the cooperative pool: see `DedicatedThreadsTrait`.
    public static var dedicatedThreads: Self { Self() }
}
