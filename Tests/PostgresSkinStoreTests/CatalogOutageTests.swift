import Foundation
import Logging
import PostgresSkinStore
import PostgresTestSupport
import SkinModel
import SkinServing
import SkinStore
import Synchronization
import TestSupport
import Testing

/// A replica whose catalog build is cut by a PostgreSQL outage serves every released skin once PostgreSQL is back,
/// without waiting for another change. (A suite of its own: it stops its server.)
@Suite(.postgresServer) struct CatalogOutageTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A minimal valid skin of app `demo`.
    static let tinySkin: [String: [UInt8]] = [
        "skin.json": Array(#"{"id":"tiny","title":"Tiny","app":"demo"}"#.utf8),
        "config.json": Array(##"{"home":{"colors":{"color_background":"#FFFFFF"}}}"##.utf8)
    ]

    /// A release window open from an hour ago to an hour from now.
    static var openWindow: ReleasePlan {
        let now = Date()
        return ReleasePlan(startsAt: now.addingTimeInterval(-3600), endsAt: now.addingTimeInterval(3600))
    }

    @Test func aBuildCutByAnOutageIsRetriedAtTheNextPollUntilEveryReleasedSkinIsServed() async throws {
        let storage = try await PostgresStoreStorage()
        let writer = try await storage.openReplica("writer")
        let replica = try await storage.openReplica("replica")
        try await writer.addVersion(
            skinID: "tiny", files: Self.tinySkin, metadata: VersionMetadata(), expectedRevision: 0,
            release: Self.openWindow, actor: "ops")
        #expect(try await replica.refresh(), "the replica knows of the release but has not read its files yet")

        let packages = try ScratchDirectory(prefix: "livery-pg-packages")
        let served = Mutex<[Catalog]>([])
        let publisher = CatalogPublisher(
            store: replica, cache: try PackageCache(directory: packages.path, logger: Self.quiet),
            limits: ValidationLimits(), logger: Self.quiet
        ) { catalog in served.withLock { $0.append(catalog) } }

        // PostgreSQL goes away while the replica builds: the skin's files cannot be read.
        try await storage.server.stop()
        #expect(await publisher.publishLatest() == nil, "a build cut by an outage fails as a whole")
        #expect(publisher.needsRetry)
        #expect(served.withLock { $0.isEmpty }, "no catalog without the released skin is published")

        try await storage.server.start()
        let following = Task {
            await replica.follow(pollInterval: .milliseconds(50), retry: { publisher.needsRetry }) {
                await publisher.publishLatest()
            }
        }
        // No new change is committed: only a retry of the failed build can serve the skin. The retry runs on the
        // cooperative pool, which the rest of the run may keep busy for tens of seconds: wait generously (without a
        // retry the skin is never served, however long the wait).
        var skins: [String] = []
        _ = try await eventually(every: .milliseconds(20)) {
            skins = served.withLock { $0.last?.releases["demo"]?.map(\.skinID.rawValue) ?? [] }
            return skins == ["tiny"]
        }
        following.cancel()
        await following.value
        #expect(skins == ["tiny"], "the released skin is served once PostgreSQL is back")
        #expect(served.withLock { $0.allSatisfy { $0.releases["demo"]?.count == 1 } }, "never a catalog without it")
        await writer.close()
        await replica.close()
    }
}
