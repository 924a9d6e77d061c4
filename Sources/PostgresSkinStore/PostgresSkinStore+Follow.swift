import PostgresClient
import Synchronization

extension PostgresSkinStore {
    /// Keeps `snapshot` up to date with the changes other replicas commit, until the calling task is cancelled:
    /// a `LISTEN livery_changes` connection wakes it at each commit, and the revision is also read every
    /// `pollInterval`, because notifications sent while the listener is disconnected are lost. Each time a newer
    /// snapshot is published, `changed` is called (a replica rebuilds its catalog there). At each poll that finds
    /// no newer snapshot, `changed` is also called if `retry` says the last one could not finish (say PostgreSQL
    /// went away while the catalog was built from its blobs), so nothing waits for the next change.
    ///
    /// A lost listener reconnects with `reconnect` between attempts and then reads the revision at once; the store's
    /// own connection reconnects on the next poll (see `init`). So once PostgreSQL is back, a replica catches up
    /// within the reconnection backoff (at most 2 s by default) plus one poll.
    ///
    /// - Parameters:
    ///   - pollInterval: time between two reads of the revision. Default 500 ms.
    ///   - reconnect: delays between listener reconnection attempts. Default 100 ms doubling up to 2 s.
    ///   - healthCheck: how the listener notices a silently dead connection. Default 5 s and 5 s.
    ///   - reachability: told `isReachable` each time a poll finds it changed (for logs).
    ///   - retry: asked at each poll; true to call `changed` again although no newer snapshot came.
    ///   - withoutListener: called once, instead of listening, when connections do not keep their server session
    ///     from one transaction to the next (PgBouncer in transaction mode: `PostgresListener.sessionsKept`), so
    ///     `LISTEN` cannot work: changes then arrive by the revision poll alone.
    ///   - changed: called after each newer snapshot is published, and when `retry` asks; calls may overlap.
    ///
    /// A newer snapshot counts whoever published it: an admin read (`currentSnapshot()`) or a refused change that
    /// reloaded the state under the revision lock publishes what another replica committed before the
    /// notification is handled, and `changed` is still called for it at the next catch-up (its revision is above
    /// the last one `changed` was called for), so the catalog never stays behind a snapshot this store already has.
    public func follow(
        pollInterval: Duration = .milliseconds(500),
        reconnect: Backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(2)),
        healthCheck: PostgresListener.HealthCheck = PostgresListener.HealthCheck(
            interval: .seconds(5), timeout: .seconds(5)),
        reachability: @escaping @Sendable (Bool) -> Void = { _ in },
        retry: @escaping @Sendable () -> Bool = { false },
        withoutListener: @escaping @Sendable () -> Void = {},
        changed: @escaping @Sendable () async -> Void
    ) async {
        let handed = HandedRevision(snapshot.revision)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var wasReachable = self.isReachable
                while !Task.isCancelled {
                    if await !self.catchUp(handed, changed), self.isReachable, retry() { await changed() }
                    if self.isReachable != wasReachable {
                        wasReachable.toggle()
                        reachability(wasReachable)
                    }
                    do { try await Task.sleep(for: pollInterval) } catch { return }
                }
            }
            group.addTask {
                // Asked once, beside the poll (which runs meanwhile).
                guard await PostgresListener.sessionsKept(self.configuration) else {
                    withoutListener()
                    return
                }
                var backoff = reconnect
                while !Task.isCancelled {
                    let listener: PostgresListener
                    do {
                        listener = try await PostgresListener.start(
                            self.configuration, channels: [PostgresStoreSchema.changesChannel], healthCheck: healthCheck
                        )
                    } catch {
                        do { try await Task.sleep(for: backoff.next()) } catch { return }
                        continue
                    }
                    backoff.reset()
                    // Whatever was committed while no listener was connected.
                    await self.catchUp(handed, changed)
                    for await event in listener.events {
                        guard case .notification(let notification) = event else { break }
                        // A revision this store already has, or commits itself, needs no read of the store.
                        let known = Int(notification.payload).map { self.knows(revision: $0) } ?? false
                        await self.catchUp(handed, changed, refreshing: !known)
                    }
                    listener.stop()
                }
            }
        }
    }

    /// `refresh()` (unless `refreshing` is false), then `changed` if the published snapshot is newer than the last
    /// one `changed` was called for (published by this refresh or by anything else since). A failure (PostgreSQL
    /// unreachable) is left for the next attempt: `isReachable` reports it meanwhile.
    ///
    /// - Returns: whether `changed` was called.
    @discardableResult
    private func catchUp(
        _ handed: HandedRevision, _ changed: @Sendable () async -> Void, refreshing: Bool = true
    ) async -> Bool {
        if refreshing { _ = try? await refresh() }
        guard handed.advance(to: snapshot.revision) else { return false }
        await changed()
        return true
    }
}

/// The revision of the last snapshot `follow` called `changed` for; shared by its poll and its listener.
private final class HandedRevision: Sendable {
    private let revision: Mutex<Int>

    init(_ revision: Int) { self.revision = Mutex(revision) }

    /// Records `revision` and returns true when it is newer than the last one recorded.
    func advance(to revision: Int) -> Bool {
        self.revision.withLock { last in
            guard revision > last else { return false }
            last = revision
            return true
        }
    }
}
