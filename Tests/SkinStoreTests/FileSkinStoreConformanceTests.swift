import Foundation
import SkinStore
import SkinStoreConformance
import Synchronization
import TestSupport
import Testing

/// `FileSkinStore` keeps every promise of the `SkinStore` role.
@Suite struct FileSkinStoreConformanceTests {
    @Test(arguments: StoreConformance.allCases)
    func fileSkinStoreConforms(to check: StoreConformance) async throws {
        try await check.run(with: .fileSkinStore)
    }

    @Test(arguments: ReportLedgerConformance.allCases)
    func fileReportLedgerConforms(to check: ReportLedgerConformance) async throws {
        try await check.run(with: .fileSkinStore)
    }
}

extension StoreFactory {
    /// File stores, each in a scratch directory of its own.
    static let fileSkinStore = StoreFactory(name: "FileSkinStore") { try FileStoreStorage() }
}

/// A scratch directory holding a `FileSkinStore`; removed when the value is dropped.
struct FileStoreStorage: StoreStorage {
    let directory: ScratchDirectory

    init() throws {
        directory = try ScratchDirectory.forStore()
    }

    func open(clock: @escaping @Sendable () -> Date) async throws -> any SkinStore {
        try FileSkinStore(directory: directory.path, clock: clock)
    }

    /// Flips one bit of the blob in place: same size, another digest.
    func damage(digest: String) async throws -> String {
        let split = digest.index(digest.startIndex, offsetBy: 2)
        let blob = directory.path + "/blobs/" + digest[..<split] + "/" + digest[split...]
        var bytes = try Disk.read(blob)
        bytes[bytes.count / 2] ^= 0x01
        try Disk.write(bytes, to: blob)
        return blob
    }
}

/// In the `SkinStore` role the file store does its disk work on its own queue, never on the caller's thread (the
/// cooperative pool), so `await`ing a change cannot starve other tasks while it fsyncs.
@Suite struct FileSkinStoreQueueTests {
    @Test func asyncChangesRunOnTheStoresOwnQueue() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let inTask = Mutex<[Bool]>([])
        // `onChange` runs on the thread that commits the change: a queue's thread runs no Swift task.
        store.onChange = { _ in
            let running = withUnsafeCurrentTask { $0 != nil }
            inTask.withLock { $0.append(running) }
        }
        let role: any SkinStore = store
        try await role.addVersion(
            skinID: "spring", files: Make.files(), metadata: Make.metadata(), expectedRevision: nil, release: nil,
            actor: Make.actor)
        try await role.setKillSwitch(app: nil, enabled: true, reason: "", expectedRevision: nil, actor: Make.actor)
        #expect(inTask.withLock { $0 } == [false, false])
    }
}
