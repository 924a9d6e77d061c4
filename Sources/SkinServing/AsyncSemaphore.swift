/// Limits how many tasks run a section at once, waking waiters in FIFO order. With a limit of 1 it is an
/// async mutex that, unlike an actor, stays held across `await`s inside the section.
package actor AsyncSemaphore {
    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// - Parameter limit: tasks allowed in at once; at least 1.
    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` once a slot is free, and frees the slot afterwards (also when `body` throws).
    package nonisolated func withPermit<T: Sendable, E: Error>(
        _ body: @Sendable () async throws(E) -> T
    ) async throws(E) -> T {
        await acquire()
        let result: Result<T, E>
        do throws(E) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await release()
        return try result.get()
    }

    private func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the first waiter; `running` stays the same.
            waiting.removeFirst().resume()
        }
    }
}
