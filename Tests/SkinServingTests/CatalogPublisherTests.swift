import Foundation
import SkinModel
import SkinStore
import Synchronization
import TestSupport
import Testing

@testable import SkinServing

/// The catalog is built from the store through its role and handed to whoever publishes it: no HTTP type involved.
@Suite struct CatalogPublisherTests {
    @Test func eachCatalogBuiltIsHandedToThePublishClosureInRevisionOrder() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-store-catalog")
        let fileStore = try FileSkinStore(directory: scratch.path + "/store")
        let store: any SkinStore = fileStore
        let cache = try ServingFixtures.cache(scratch.path + "/packages")
        let published = Mutex<[Catalog]>([])
        let catalog = CatalogPublisher(
            store: store, cache: cache, limits: ValidationLimits(), logger: ServingFixtures.quiet,
            publish: { catalog in published.withLock { $0.append(catalog) } })

        #expect(await catalog.publishLatest() == 0)
        try await store.setKillSwitch(app: nil, enabled: true, reason: "drill", expectedRevision: nil, actor: "ops")
        #expect(await catalog.publishLatest() == 1)

        let states = published.withLock { $0 }
        #expect(states.count == 2)
        #expect(states.first?.killSwitch.blocks(app: "com.example.app") == false)
        #expect(states.last?.killSwitch.blocks(app: "com.example.app") == true)
        await store.close()
    }

    @Test func killSwitchesAloneMakeTheServedCatalogTheirRevisionsWithoutARebuild() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-store-catalog")
        let store = try FileSkinStore(directory: scratch.path + "/store")
        try await store.addVersion(
            skinID: "tiny", files: ServingFixtures.tinySkin(), metadata: VersionMetadata(), expectedRevision: 0,
            release: ServingFixtures.window(around: Date()), actor: "test")
        let published = Mutex<[Catalog]>([])
        let catalog = CatalogPublisher(
            store: store, cache: try ServingFixtures.cache(scratch.path + "/packages"), limits: ValidationLimits(),
            logger: ServingFixtures.quiet, publish: { catalog in published.withLock { $0.append(catalog) } })
        #expect(await catalog.publishLatest() == 1)
        let built = try #require(published.withLock { $0.last })

        try await store.setKillSwitch(app: nil, enabled: true, reason: "drill", expectedRevision: nil, actor: "ops")
        catalog.applyKillSwitches(of: store.snapshot)
        #expect(catalog.publishedRevision == 2, "nothing but the kill switch changed: no rebuild to wait for")
        let switched = try #require(published.withLock { $0.last })
        #expect(switched.revision == 2 && switched.killSwitch.global)
        #expect(switched.allReleases.map(ObjectIdentifier.init) == built.allReleases.map(ObjectIdentifier.init))

        try await store.addVersion(
            skinID: "other", files: ServingFixtures.tinySkin(id: "other"), metadata: VersionMetadata(),
            expectedRevision: 0, release: nil, actor: "test")
        try await store.setKillSwitch(app: nil, enabled: false, reason: "", expectedRevision: nil, actor: "ops")
        catalog.applyKillSwitches(of: store.snapshot)
        let applied = try #require(published.withLock { $0.last })
        #expect(!applied.killSwitch.global, "the kill switch is served at once")
        #expect(catalog.publishedRevision == 2 && applied.revision == 2, "a skin changed since: the rebuild says 4")
        #expect(await catalog.publishLatest() == 4)
        #expect(published.withLock { $0.count } == 4)
        store.close()
    }
}
