import LiveryHTTP
import Synchronization

/// Records everything an observer receives.
final class RecordingObserver: HTTPServerObserver {
    let requests = Mutex<[HTTPRequestEvent]>([])
    let opened = Atomic<Int>(0)
    let closed = Atomic<Int>(0)

    func connectionOpened(_ event: HTTPConnectionEvent) { opened.add(1, ordering: .relaxed) }
    func connectionClosed(_ event: HTTPConnectionEvent) { closed.add(1, ordering: .relaxed) }
    func requestCompleted(_ event: HTTPRequestEvent) { requests.withLock { $0.append(event) } }
}
