import Foundation
import PostgresClient
import SkinStore

extension PostgresSkinStore {
    /// The advisory lock key a scrub holds while it runs, so of several replicas one scrubs at a time.
    public static let scrubLockKey: Int64 = 0x6C69_7665_7279_0003

    /// Rehashes every blob row and recomputes every live version's digest from its file rows, on a connection of
    /// its own (the store's connection, if any, stays free), in one repeatable-read transaction so the rows read
    /// agree with each other. PostgreSQL hashes each blob where it is stored (`sha256(bytes)`), so no blob crosses
    /// the network and memory stays flat however large the store.
    ///
    /// - Parameter exclusive: take the scrub advisory lock without waiting, and return nil when another process
    ///   (replica) holds it: what `serve`'s periodic scrub does, so one replica scrubs at a time. `livery store
    ///   verify` passes false and always runs.
    /// - Throws: `unavailable` (or another `StoreError`) when PostgreSQL cannot be reached or read.
    public static func scrub(
        _ configuration: PostgresConfiguration, exclusive: Bool
    ) async throws(StoreError) -> StoreScrubReport? {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration)
        } catch {
            throw storeError(error)
        }
        let outcome: Swift.Result<StoreScrubReport?, StoreError>
        do {
            outcome = .success(
                try await connection.withSession { session in
                    if exclusive {
                        guard try session.tryAdvisoryLock(scrubLockKey) else { return nil }
                    }
                    defer { if exclusive { _ = try? session.advisoryUnlock(scrubLockKey) } }
                    return try session.transaction(isolation: .repeatableRead) { session in try scrubRows(session) }
                })
        } catch {
            outcome = .failure(storeError(error))
        }
        await connection.close()
        return try outcome.get()
    }

    /// The checks of `scrub`, inside its transaction.
    private static func scrubRows(_ session: PostgresSession) throws -> StoreScrubReport {
        var report = StoreScrubReport()
        struct Use { let skin: String, version: Int, path: String, size: Int? }
        var files = [String: [Int: [StoredFile]]]()
        var references = [String: [Use]]()
        for row in try session.query(
            """
            SELECT f.skin_id, f.number, f.path, f.sha256, f.size FROM livery_version_files f
            JOIN livery_skins s ON s.id = f.skin_id WHERE NOT s.deleted
            """
        ).rows {
            let file = StoredFile(path: try row.string(2), size: try row.int(4), sha256: try row.string(3))
            let skin = try row.string(0)
            let number = try row.int(1)
            files[skin, default: [:]][number, default: []].append(file)
            references[file.sha256, default: []].append(
                Use(skin: skin, version: number, path: file.path, size: file.size))
        }
        for row in try session.query(
            """
            SELECT v.skin_id, v.number, v.metadata_sha256, v.digest FROM livery_versions v
            JOIN livery_skins s ON s.id = v.skin_id WHERE NOT s.deleted ORDER BY v.skin_id, v.number
            """
        ).rows {
            let skin = try row.string(0)
            let number = try row.int(1)
            let metadata = try row.string(2)
            let recorded = try row.string(3)
            report.checkedVersions += 1
            let stored = (files[skin]?[number] ?? []).sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            let digest = SkinVersion.digest(files: stored, metadataDigest: metadata)
            if digest != recorded {
                report.damages.append(
                    StoreDamage(
                        kind: .version, skinID: skin, version: number,
                        location: "livery_versions row skin_id=\(skin) number=\(number)",
                        reason: "the version digest is \(recorded) but its file rows and metadata hash to \(digest)"))
            }
            references[metadata, default: []].append(Use(skin: skin, version: number, path: "metadata", size: nil))
        }
        var seen = Set<String>()
        for row in try session.query(
            """
            SELECT sha256, size, length(bytes), encode(sha256(bytes), 'hex') FROM livery_blobs ORDER BY sha256
            """
        ).rows {
            let name = try row.string(0)
            let size = try row.int(1)
            let length = try row.int(2)
            let digest = try row.string(3)
            seen.insert(name)
            report.checkedBlobs += 1
            let uses = references[name] ?? [Use(skin: "-", version: 0, path: StoreRows.blobName(name), size: nil)]
            for use in uses {
                let expected = use.size ?? size
                guard digest != name || length != size || length != expected else { continue }
                report.damages.append(
                    StoreDamage(
                        kind: .blob, skinID: use.skin, version: use.version, location: use.path,
                        reason:
                            "\(StoreRows.blobName(name)) holds \(length) bytes hashing to \(digest), not \(expected) bytes hashing to \(name)"
                    ))
            }
        }
        for (name, uses) in references.sorted(by: { $0.key < $1.key }) where !seen.contains(name) {
            for use in uses {
                report.damages.append(
                    StoreDamage(
                        kind: .blob, skinID: use.skin, version: use.version, location: use.path,
                        reason: "\(StoreRows.blobName(name)) is missing"))
            }
        }
        return report
    }
}
