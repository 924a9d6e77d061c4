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
}
