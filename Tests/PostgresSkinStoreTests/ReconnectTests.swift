import Foundation
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinStore
import Synchronization
import TestSupport
import Testing

/// A replica's store follows the others (NOTIFY and revision polls), takes the import lock one process at a time,
/// and reconnects on its own after PostgreSQL comes back.
@Suite(.postgresServer) struct FollowTests {
    @Test func followPublishesAnotherReplicasChangeAndSaysSo() async throws {
        let storage = try await PostgresStoreStorage()
        let writer = try await storage.openReplica("writer")
        let follower = try await storage.openReplica("follower")
        let changes = AsyncStream<Int>.makeStream()
        // A poll interval far longer than the test: the NOTIFY alone must wake the follower.
        let following = Task {
            await follower.follow(pollInterval: .seconds(3600)) {
                changes.continuation.yield(follower.snapshot.revision)
            }
        }
        var published = changes.stream.makeAsyncIterator()
        // The listener is connected once it has caught up (nothing to catch up: revision 0, so no call); wait for
        // a notification to reach it by repeating a harmless change until the follower reports one.
        try await writer.setKillSwitch(
            app: nil, enabled: true, reason: "first", expectedRevision: nil, actor: ReplicaTests.actor)
        #expect(await published.next() == 1)
        try await writer.setKillSwitch(
            app: nil, enabled: false, reason: "second", expectedRevision: nil, actor: ReplicaTests.actor)
        #expect(await published.next() == 2)
        #expect(follower.snapshot == writer.snapshot)
        following.cancel()
        await following.value
        await writer.close()
        await follower.close()
    }

    @Test func exclusivelyRunsOneBodyAtATimeAcrossStores() async throws {
        let storage = try await PostgresStoreStorage()
        let stores = [try await storage.openReplica("a"), try await storage.openReplica("b")]
        final class Counts: Sendable {
            let inside = Atomic<Int>(0)
            let overlaps = Atomic<Int>(0)
        }
        let counts = Counts()
        await withTaskGroup(of: Void.self) { group in
            for round in 0..<6 {
                let store = stores[round % 2]
                group.addTask {
                    _ = try? await store.exclusively { () throws(StoreError) in
                        if counts.inside.add(1, ordering: .relaxed).newValue > 1 {
                            counts.overlaps.add(1, ordering: .relaxed)
                        }
                        try? await Task.sleep(for: .milliseconds(20))
                        counts.inside.subtract(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(counts.overlaps.load(ordering: .relaxed) == 0)
        for store in stores { await store.close() }
    }
}

extension FollowTests {
    /// An admin read (`currentSnapshot`) or a refused change on the follower may publish another replica's change
    /// before the follower's notification or poll comes: `changed` must still be called for it, or that replica's
    /// catalog would keep serving the state from before until some later change.
    @Test func aChangeAReadPublishedFirstIsStillHandedOn() async throws {
        let storage = try await PostgresStoreStorage()
        let writer = try await storage.openReplica("writer")
        let follower = try await storage.openReplica("follower")
        let handed = Mutex<[Int]>([])
        let following = Task {
            await follower.follow(pollInterval: .milliseconds(100)) {
                let revision = follower.snapshot.revision
                handed.withLock { $0.append(revision) }
            }
        }
        try await writer.setKillSwitch(
            app: nil, enabled: true, reason: "first", expectedRevision: nil, actor: ReplicaTests.actor)
        #expect(try await eventually { handed.withLock { $0.contains(1) } })
        for revision in 2...6 {
            try await writer.setKillSwitch(
                app: nil, enabled: revision % 2 == 1, reason: "r\(revision)", expectedRevision: nil,
                actor: ReplicaTests.actor)
            // The read publishes the change at once, before the follower's own catch-up can.
            #expect(try await follower.currentSnapshot().revision == revision)
            #expect(
                try await eventually { handed.withLock { $0.contains(revision) } },
                "revision \(revision) handed on")
        }
        following.cancel()
        await following.value
        await writer.close()
        await follower.close()
    }

    @Test func exclusivelyShowsWhatThePreviousHolderCommitted() async throws {
        let storage = try await PostgresStoreStorage()
        let first = try await storage.openReplica("a")
        let second = try await storage.openReplica("b")
        _ = try await first.exclusively { () throws(StoreError) in
            try await first.setKillSwitch(
                app: nil, enabled: true, reason: "import", expectedRevision: nil, actor: ReplicaTests.actor)
        }
        #expect(second.snapshot.revision == 0, "no refresh yet")
        let seen = try await second.exclusively { () throws(StoreError) in second.snapshot.revision }
        #expect(seen == 1)
        await first.close()
        await second.close()
    }
}

/// A store whose PostgreSQL stops and starts again. (A suite of its own, one test at a time: they stop its server.)
@Suite(.postgresServer, .serialized) struct ReconnectTests {
    @Test func aStoreRefusesChangesWhilePostgreSQLIsDownAndReconnectsWhenItIsBack() async throws {
        let storage = try await PostgresStoreStorage()
        let store = try await storage.openReplica()
        try await store.setKillSwitch(
            app: nil, enabled: true, reason: "before", expectedRevision: nil, actor: ReplicaTests.actor)
        #expect(store.isReachable)

        try await storage.server.stop()
        let refused = await ReplicaTests.attempt { () async throws(StoreError) in
            try await store.setKillSwitch(
                app: nil, enabled: false, reason: "down", expectedRevision: nil, actor: ReplicaTests.actor)
        }
        guard case .failure(.unavailable) = refused else {
            Issue.record("expected unavailable, got \(refused)")
            return
        }
        #expect(!store.isReachable)
        #expect(store.snapshot.revision == 1, "reads keep the last snapshot")

        try await storage.server.start()
        // Reconnection attempts are spaced by a backoff of at most 2 s: bounded retries, no fixed sleep.
        var changed = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !changed && ContinuousClock.now < deadline {
            let outcome = await ReplicaTests.attempt { () async throws(StoreError) in
                try await store.setKillSwitch(
                    app: nil, enabled: false, reason: "back", expectedRevision: 1, actor: ReplicaTests.actor)
            }
            if case .success = outcome { changed = true } else { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(changed)
        #expect(store.isReachable && store.snapshot.revision == 2)
        await store.close()
    }

    @Test func aStoreMadeWhilePostgreSQLIsDownConnectsOnceItIsBack() async throws {
        let storage = try await PostgresStoreStorage()
        try await storage.server.stop()
        let store = try PostgresSkinStore(try storage.configuration, cacheDirectory: storage.cache.path("late"))
        #expect(!store.isReachable)
        final class Waits: Sendable { let count = Atomic<Int>(0) }
        let waits = Waits()
        let connecting = Task {
            try await store.connectRetrying { _, _ in waits.count.add(1, ordering: .relaxed) }
        }
        while waits.count.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await storage.server.start()
        try await connecting.value
        #expect(store.isReachable && store.snapshot.revision == 0)
        try await store.setKillSwitch(
            app: nil, enabled: true, reason: "up", expectedRevision: nil, actor: ReplicaTests.actor)
        await store.close()
    }
}

/// `PostgresSkinStore.scrub`: one replica at a time (issue 22, faults 6). While another session holds the scrub's
/// advisory lock, an exclusive scrub (serve's) does not run; `livery store verify`'s (not exclusive) still does.
@Suite(.postgresServer) struct ScrubLockTests {
    @Test func anExclusiveScrubSkipsWhileAnotherSessionHoldsTheScrubLock() async throws {
        let storage = try await PostgresStoreStorage()
        let store = try await storage.openReplica("a")
        try await store.addVersion(
            skinID: "tiny", files: ["config.json": Array("{}".utf8)], metadata: VersionMetadata(source: "m"),
            expectedRevision: nil,
            release: nil, actor: ReplicaTests.actor)
        let holder = try await PostgresConnection.connect(storage.configuration)
        try await holder.query("SELECT pg_advisory_lock($1)", [.int(PostgresSkinStore.scrubLockKey)])
        #expect(try await PostgresSkinStore.scrub(storage.configuration, exclusive: true) == nil)
        let verified = try #require(try await PostgresSkinStore.scrub(storage.configuration, exclusive: false))
        #expect(verified.isClean && verified.checkedVersions == 1 && verified.checkedBlobs == 2)
        await holder.close()
        let scrubbed = try #require(try await PostgresSkinStore.scrub(storage.configuration, exclusive: true))
        #expect(scrubbed == verified)
        await store.close()
    }
}
