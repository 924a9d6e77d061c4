import CLibPQ
import Foundation
import Synchronization

/// One thread of its own that runs submitted jobs in order: where a connection's blocking libpq calls happen, so
/// they never occupy Swift's cooperative pool or an HTTP event loop.
///
/// The name shows in `ps -L` and debuggers; Linux keeps at most 15 bytes of it.
/// The thread lives until `finish()` has been called and the jobs submitted before it have run.
final class WorkerThread: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var finishing = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    init(name: String) {
        // The kernel thread name, set from inside the thread: Foundation's `Thread.name` does not
        // reliably reach it on Linux.
        Thread { [self] in
            livery_name_current_thread(name)
            run()
        }.start()
    }

    /// Queues `job`; false (and the job is dropped) once `finish()` was called.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard !state.finishing else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { wake.signal() }
        return accepted
    }

    /// Lets the thread end after the jobs already queued.
    func finish() {
        state.withLock { $0.finishing = true }
        wake.signal()
    }

    /// Runs `body` on the thread and suspends until it has returned (a job submitted after `finish()` throws
    /// `PostgresError.closed`).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = submit { continuation.resume(with: Result { try body() }) }
            if !accepted { continuation.resume(throwing: PostgresError.closed) }
        }
    }

    private func run() {
        while true {
            wake.wait()
            let (jobs, finishing) = state.withLock { state in
                defer { state.jobs.removeAll() }
                return (state.jobs, state.finishing)
            }
            for job in jobs { job() }
            if finishing && jobs.isEmpty { return }
            if finishing {
                // Jobs queued between the swap and `finish()` were taken above; loop once more to see none remain.
                wake.signal()
            }
        }
    }
}
