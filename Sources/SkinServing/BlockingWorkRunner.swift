import Dispatch
import Foundation

/// Runs blocking work (disk writes with fsync, inflating uploads, validation) off Swift's cooperative pool and
/// off the HTTP event-loop threads, and resumes the caller with the result.
///
/// A serial Dispatch queue is "overcommit": it gets a thread even when every core is busy, so a job never waits
/// behind the cooperative pool. (Concurrent Dispatch queues do not have that property, hence `onOwnThread` for
/// work that may run in parallel; callers bound how much.)
package struct BlockingWorkRunner: Sendable {
    private let queue: DispatchQueue

    /// - Parameter label: the queue's name, shown in debuggers and crash logs.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the queue, after every job queued before it, and returns what it returns or throws.
    package func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
        }
        return try result.get()
    }

    /// Runs `work` on a thread of its own and returns what it returns or throws.
    package static func onOwnThread<T: Sendable, E: Error>(
        name: String, _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
            thread.name = name
            thread.start()
        }
        return try result.get()
    }
}
