import Foundation
import SkinModel
import SkinStore
import Synchronization
import Testing
import TestSupport
@testable import LiveryServer

/// The catalog is built from the store through its role and handed to whoever publishes it: no HTTP type involved.
@Suite struct StoreCatalogTests {
    @Test func eachCatalogBuiltIsHandedToThePublishClosureInRevisionOrder() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-store-catalog")
        let fileStore = try FileSkinStore(directory: scratch.path + "/store")
        let store: any SkinStore = fileStore
        let cache = try PackageCache(directory: scratch.path + "/packages", logger: LiveryHarness.quiet)
        let published = Mutex<[CatalogState]>([])
        let catalog = StoreCatalog(
            store: store, cache: cache, limits: ValidationLimits(), logger: LiveryHarness.quiet,
            publish: { state in published.withLock { $0.append(state) } })

        #expect(await catalog.publishLatest() == 0)
        try await store.setKillSwitch(app: nil, enabled: true, reason: "drill", expectedRevision: nil, actor: "ops")
        #expect(await catalog.publishLatest() == 1)

        let states = published.withLock { $0 }
        #expect(states.count == 2)
        #expect(states.first?.catalog.killSwitch.blocks(app: "com.example.app") == false)
        #expect(states.last?.catalog.killSwitch.blocks(app: "com.example.app") == true)
        await store.close()
    }
}
