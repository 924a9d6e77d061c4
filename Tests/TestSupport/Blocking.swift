import Foundation

/// Runs blocking work (sockets, `waitpid`, child processes, long disk loops) on a thread of its own and awaits its
/// result, so it never occupies Swift's cooperative pool.
///
/// On Linux the pool is Dispatch's global queue with as many threads as cores (two on the CI machine): a test
/// that blocks there starves every async handler of the servers other suites run. The work runs on
/// `ThreadPerJobExecutor` (one new `Thread`) inside the calling task, so it keeps the task's task-local values: an
/// `#expect` in it is reported against the test that called, as anywhere else in that test. The work is not
/// cancelled with the task, so give it its own deadline.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(ThreadPerJobExecutor.shared, isolation: nil) {
        try await runOnTheCurrentExecutor(body)
    }
}

/// Runs `body` where a nonisolated async function runs: on the task's preferred executor.
@concurrent private func runOnTheCurrentExecutor<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
    try body()
}
