import Foundation

/// A value behind an `NSLock`: the SDK's one lock (no `Synchronization`, which needs iOS 18).
///
/// Invariant: `value` is only read or written inside `withLock`, so the box is safe to share between threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value while holding the lock; `body` must not call back into this box.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
