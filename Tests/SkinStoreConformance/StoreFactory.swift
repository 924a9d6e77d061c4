import Foundation
import SkinStore

/// How the conformance suite gets stores of one implementation: fresh, empty storage on demand.
///
/// An implementation's test target supplies one (`FileSkinStore`'s is in `SkinStoreTests`; PostgreSQL's will make a
/// database) and runs every `StoreConformance` check with it.
public struct StoreFactory: Sendable, CustomStringConvertible {
    /// The implementation's name, shown in test names.
    public let name: String
    /// Makes new, empty storage that no other test uses.
    public let makeStorage: @Sendable () async throws -> any StoreStorage

    public init(name: String, makeStorage: @escaping @Sendable () async throws -> any StoreStorage) {
        self.name = name
        self.makeStorage = makeStorage
    }

    public var description: String { name }
}

/// One place where a store keeps its state (a directory, a database), which can be opened again after `close()`.
/// Keep it alive for the whole test: dropping it may remove the storage.
public protocol StoreStorage: Sendable {
    /// Opens a store over this storage, recording change times from `clock`. At most one store is open at a time.
    func open(clock: @escaping @Sendable () -> Date) async throws -> any SkinStore

    /// Damages the stored copy of the content whose SHA-256 is `digest` (as something outside the process could),
    /// and returns the name a `StoreError.corruptFile` about it must carry in its `path` (the file, or the row).
    func damage(digest: String) async throws -> String
}
