import Foundation
import LiveryJSON
import SkinModel
import SkinStore
import Synchronization
import TestSupport

extension ScratchDirectory {
    /// A fresh store directory for one test. Bind it to a local for the whole test: a temporary would be removed
    /// while the store still uses it.
    static func forStore() throws -> ScratchDirectory {
        try ScratchDirectory(prefix: "skinstore-test")
    }

    /// Opens a store in this folder with `clock`.
    func open(clock: TestClock = TestClock()) throws(StoreError) -> FileSkinStore {
        try FileSkinStore(directory: path, clock: clock.read)
    }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let now: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        now = Mutex(start)
    }

    var read: @Sendable () -> Date {
        { [self] in now.withLock { $0 } }
    }

    func advance(seconds: TimeInterval) {
        now.withLock { $0 += seconds }
    }

    var current: Date { now.withLock { $0 } }
}

/// Test data builders.
enum Make {
    static let actor = "ops-alice"

    /// A small skin folder: config.json plus two images, the second one different per `variant`.
    static func files(variant: Int = 0) -> [String: [UInt8]] {
        [
            "config.json": Array(#"{"name":"spring"}"#.utf8),
            "images/background.png": [0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 7, count: 100),
            "images/icon.png": [0x89, 0x50, 0x4E, 0x47, UInt8(variant & 0xFF)]
        ]
    }

    static func metadata(_ note: String = "v") -> VersionMetadata {
        VersionMetadata(folder: note, skin: JSONObject([.init(key: "id", value: "spring")]))
    }

    /// A release plan for a year from the test clock's start.
    static func plan(rollout: Int = 100) -> ReleasePlan {
        ReleasePlan(
            startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: Date(timeIntervalSince1970: 1_831_536_000),
            priority: 10, rollout: rollout)
    }

    /// The store with `skinID` holding `count` versions.
    @discardableResult
    static func versions(
        _ count: Int, of skinID: String = "spring", in store: FileSkinStore
    ) async throws -> [SkinVersion] {
        var added = [SkinVersion]()
        for index in 0..<count {
            added.append(
                try await store.addVersion(
                    skinID: skinID, files: files(variant: index), metadata: metadata("\(index)"), actor: actor))
        }
        return added
    }
}

extension StoreError {
    /// True for `.corruptFile` about a path ending with `suffix`.
    func isCorruptFile(endingWith suffix: String) -> Bool {
        if case .corruptFile(let path, _) = self { return path.hasSuffix(suffix) }
        return false
    }
}

/// Small file helpers for tests that poke at the directory.
enum Disk {
    static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    static func list(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}
