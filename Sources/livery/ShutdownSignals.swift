import Dispatch
import Foundation
import LiveryHTTP
import LiveryServer
import Logging
import SystemCalls

/// SIGTERM and SIGINT as Dispatch sources.
///
/// The first signal marks the service as draining (`/readyz` answers 503), waits `shutdownDelay` with the listeners
/// still open so load balancers see the 503 and stop routing here, then begins a graceful shutdown of every server
/// (in-flight requests get the drain timeout). A second signal closes everything at once.
///
/// The signals are ignored first so their default action (terminating the process) never runs; Dispatch still
/// delivers them to the sources.
final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]

    init(servers: [HTTPServer], service: LiveryService, shutdownDelay: Duration, logger: Logger) {
        let queue = DispatchQueue(label: "livery.signals")
        let received = SignalCount()
        let registered = DispatchGroup()
        let delayNanoseconds = Self.nanoseconds(shutdownDelay)
        sources = [SIGTERM, SIGINT].map { number in
            Syscall.ignoreSignal(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.increment() == 1 {
                    service.beginDraining()
                    logger.notice(
                        "signal \(number): draining; /readyz answers 503",
                        metadata: ["shutdown.delay": "\(shutdownDelay)"])
                    let stop: @Sendable () -> Void = { for server in servers { server.beginShutdown() } }
                    if delayNanoseconds == 0 {
                        stop()
                    } else {
                        queue.asyncAfter(deadline: .now() + .nanoseconds(delayNanoseconds), execute: stop)
                    }
                } else {
                    logger.notice("signal \(number) again: closing all connections now")
                    for server in servers { server.beginShutdown(drainTimeout: .zero) }
                }
            }
            source.setRegistrationHandler { registered.leave() }
            registered.enter()
            source.activate()
            return source
        }
        // Until the sources are registered the signals are ignored, so one sent right after LIVERY_LISTENING (by a
        // script, or an orchestrator stopping a fresh container) would be lost: wait for the registration.
        if registered.wait(timeout: .now() + 5) == .timedOut {
            logger.warning("signal handlers not confirmed registered after 5 s")
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
    }
}

/// Counts signals; used only on the signal queue.
private final class SignalCount: @unchecked Sendable {
    // Invariant: only touched on the serial "livery.signals" queue.
    private var count = 0
    func increment() -> Int {
        count += 1
        return count
    }
}
