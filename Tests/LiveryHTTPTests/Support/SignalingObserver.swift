import Dispatch
import Synchronization

@testable import LiveryHTTP

/// An observer that lets a blocking test wait for connections to close, without polling.
final class SignalingObserver: HTTPServerObserver {
    let closedSignal = DispatchSemaphore(value: 0)
    let openedCount = Atomic<Int>(0)

    func connectionOpened(_ event: HTTPConnectionEvent) { openedCount.add(1, ordering: .relaxed) }
    func connectionClosed(_ event: HTTPConnectionEvent) { closedSignal.signal() }

    /// Waits for one close event; false after `seconds`.
    func waitForClose(seconds: Double = 5) -> Bool {
        closedSignal.wait(timeout: .now() + seconds) == .success
    }
}
