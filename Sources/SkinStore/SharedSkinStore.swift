/// A `SkinStore` whose storage other processes share (several replicas on one PostgreSQL), as the server needs it
/// beyond the `SkinStore` role: one-at-a-time work across processes, and whether the storage answers.
///
/// `FileSkinStore` is not one: one process owns its folder, so it needs neither.
public protocol SharedSkinStore: SkinStore {
    /// Whether the storage answered the last time this store contacted it (false while it is unreachable and this
    /// store is reconnecting). Reads keep working on `snapshot` either way; changes fail with `unavailable`.
    var isReachable: Bool { get }

    /// Runs `body` while holding a lock that every process sharing the storage takes for the same purpose (the
    /// first start's import of the skins folder), waiting for it first: of several processes, one runs `body` at a
    /// time. The lock is released when `body` returns or throws, and when this process dies.
    ///
    /// - Throws: `unavailable` when the lock cannot be taken; whatever `body` throws.
    func exclusively<T: Sendable>(
        _ body: @Sendable () async throws(StoreError) -> T
    ) async throws(StoreError) -> T
}
