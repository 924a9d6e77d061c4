import Foundation

/// Runs blocking work (sockets, `waitpid`, child processes, long disk loops) on a thread of its own and awaits its
/// result, so it never occupies Swift's cooperative pool.
///
/// On Linux the pool is Dispatch's global queue with as many threads as cores (two on the CI machine): a test
/// that blocks there starves every async handler of the servers other suites run. Each call starts one new
/// `Thread`; the work is not cancelled with the task, so give it its own deadline.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
