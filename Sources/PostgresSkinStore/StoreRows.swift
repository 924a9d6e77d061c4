import Foundation
import LiveryCrypto
import PostgresClient
import SkinStore

/// The SQL of `PostgresSkinStore`: reading the whole state into a snapshot, writing one change's rows, the audit
/// log and blobs. Every function runs on a blocking session, inside the caller's transaction.
enum StoreRows {
    /// How a corrupt blob row is named in `StoreError.corruptFile`.
    static func blobName(_ digest: String) -> String { "livery_blobs row sha256=\(digest)" }

    /// The store revision; `forUpdate` locks the row until the transaction ends (how changes serialize).
    static func revision(_ session: PostgresSession, forUpdate: Bool) throws(StoreError) -> Int {
        try rows(session, "SELECT revision FROM livery_store" + (forUpdate ? " FOR UPDATE" : ""), []) {
            row throws(PostgresError) in
            try row.int(0)
        }.first ?? 0
    }

    /// How the store-wide revision row is named in `StoreError.corruptFile`.
    static let revisionRowName = "livery_store row"

    /// The whole state, with every version's metadata checked against its digest and parsed, its file list checked
    /// against the version's digest, and every release document parsed. Damage stays with its version: a version
    /// whose metadata blob is missing, damaged or unreadable, or whose file rows do not match its digest (rows
    /// changed behind Livery's back), is loaded marked (`SkinVersion.damage`), never served nor read, and
    /// everything else loads as usual; a release document that is not a plan loads as a damaged release
    /// (`Release.damage`: its skin is not served). A version a scrub marked (`scrub_damage`) loads with that mark.
    ///
    /// - Throws: `corruptFile` naming the `livery_store` row when the store-wide revision row is missing or
    ///   behind the rows it counts (nothing can be changed safely then); `unavailable` when PostgreSQL fails.
    static func load(_ session: PostgresSession) throws(StoreError) -> StoreSnapshot {
        let counterRows = try rows(session, "SELECT revision, kill_switch_revision FROM livery_store", []) {
            row throws(PostgresError) in (try row.int(0), try row.int(1))
        }
        guard let counters = counterRows.first else {
            throw .corruptFile(
                path: revisionRowName,
                reason: "the store's revision row is missing: restore the database from a backup (the store cannot "
                    + "number changes without it)")
        }
        struct SkinRow { let id: String, revision: Int, lastVersion: Int, deleted: Bool }
        let skinRows = try rows(session, "SELECT id, revision, last_version, deleted FROM livery_skins", []) {
            row throws(PostgresError) in
            SkinRow(
                id: try row.string(0), revision: try row.int(1), lastVersion: try row.int(2), deleted: try row.bool(3))
        }
        var files = [String: [Int: [StoredFile]]]()
        for (skinID, number, file) in try rows(
            session, "SELECT skin_id, number, path, sha256, size FROM livery_version_files", [],
            { row throws(PostgresError) in
                (
                    try row.string(0), try row.int(1),
                    StoredFile(path: try row.string(2), size: try row.int(4), sha256: try row.string(3))
                )
            })
        {
            files[skinID, default: [:]][number, default: []].append(file)
        }
        // A left join: a version whose metadata blob row is gone is damaged, not silently dropped.
        let versionRows = try rows(
            session,
            """
            SELECT v.skin_id, v.number, v.created_at, v.actor, v.metadata_sha256, v.digest, b.bytes, b.size,
                v.scrub_damage
            FROM livery_versions v LEFT JOIN livery_blobs b ON b.sha256 = v.metadata_sha256
            ORDER BY v.skin_id, v.number
            """, []
        ) { row throws(PostgresError) in
            let skinID = try row.string(0)
            let number = try row.int(1)
            let stored = (files[skinID]?[number] ?? []).sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            return SkinVersion.loaded(
                skinID: skinID, number: number, createdAt: StoreTime.date(Int64(try row.int(2))),
                actor: try row.string(3), files: stored, metadata: try row.optionalBytes(6),
                metadataDigest: try row.string(4), metadataSize: try row.optionalInt(7) ?? 0, digest: try row.string(5),
                scrubDamage: try row.optionalString(8))
        }
        var versions = [String: [SkinVersion]]()
        for version in versionRows {
            versions[version.skinID, default: []].append(version)
        }
        let releases = try rows(
            session, "SELECT skin_id, version, document, released_at, actor FROM livery_releases", []
        ) {
            row throws(PostgresError) in
            (
                try row.string(0),
                Release.loaded(
                    version: try row.int(1), document: try row.bytes(2),
                    releasedAt: StoreTime.date(Int64(try row.int(3))),
                    actor: try row.string(4))
            )
        }
        let releaseBySkin = Dictionary(releases, uniquingKeysWith: { first, _ in first })
        // The revision numbers every change; one behind the rows it counts would make changes collide.
        if let ahead = skinRows.max(by: { $0.revision < $1.revision }), ahead.revision > counters.0 {
            throw .corruptFile(
                path: revisionRowName,
                reason: "the store revision \(counters.0) is behind skin \(ahead.id)'s revision \(ahead.revision): "
                    + "restore the database from a backup")
        }
        if counters.1 > counters.0 {
            throw .corruptFile(
                path: revisionRowName,
                reason: "the kill switches' revision \(counters.1) is ahead of the store revision \(counters.0): "
                    + "restore the database from a backup")
        }
        var skins = [String: SkinState]()
        var tombstones = [String: Tombstone]()
        for skin in skinRows {
            if skin.deleted {
                tombstones[skin.id] = Tombstone(revision: skin.revision, lastVersion: skin.lastVersion)
            } else {
                skins[skin.id] = SkinState(
                    id: skin.id, revision: skin.revision, versions: versions[skin.id] ?? [],
                    release: releaseBySkin[skin.id])
            }
        }
        return StoreSnapshot(
            revision: counters.0, skins: skins, killSwitches: try killSwitches(session, revision: counters.1),
            tombstones: tombstones)
    }

    /// The state at the store's revision, given `known`, a state this store loaded before: when every change since
    /// `known` was a kill switch's (their audit entries all there, none of another action), only the kill switches
    /// are read and the rest is `known`'s; otherwise (another change, or a revision moved by hand: a missing audit
    /// entry) the whole state, as `load`.
    static func load(_ session: PostgresSession, after known: StoreSnapshot) throws(StoreError) -> StoreSnapshot {
        let counters = try rows(
            session,
            """
            SELECT s.revision, s.kill_switch_revision,
                (SELECT count(*) FROM livery_audit a WHERE a.sequence > $1 AND a.sequence <= s.revision AND a.action = $2)
            FROM livery_store s
            """, [.int(known.revision), .text(AuditAction.setKillSwitch)]
        ) { row throws(PostgresError) in (try row.int(0), try row.int(1), try row.int(2)) }
        guard let (revision, switchesRevision, switchChanges) = counters.first, revision > known.revision,
            switchChanges == revision - known.revision, switchesRevision == revision
        else { return try load(session) }
        return StoreSnapshot(
            revision: revision, skins: known.skins, killSwitches: try killSwitches(session, revision: revision),
            tombstones: known.tombstones)
    }

    /// The kill switches, as of the store's kill-switch revision `revision`.
    private static func killSwitches(_ session: PostgresSession, revision: Int) throws(StoreError) -> KillSwitches {
        var global: KillSwitch?
        var apps = [String: KillSwitch]()
        for (app, setting) in try rows(
            session, "SELECT app, enabled, reason, actor, changed_at FROM livery_kill_switches", [],
            { row throws(PostgresError) in
                (
                    try row.string(0),
                    KillSwitch(
                        enabled: try row.bool(1), reason: try row.string(2), actor: try row.string(3),
                        changedAt: StoreTime.date(Int64(try row.int(4))))
                )
            })
        {
            if app.isEmpty { global = setting } else { apps[app] = setting }
        }
        return KillSwitches(global: global, apps: apps, revision: revision)
    }

    /// Writes the rows `change` makes (its snapshot is `next`): blobs not stored yet, the changed skin (or the
    /// kill switches), the audit entry, the revision counters, and the notification sent at commit.
    static func write<Result>(
        _ session: PostgresSession, change: StoreChange<Result>, next: StoreSnapshot, blobs: [String: [UInt8]],
        entry: AuditEntry
    ) throws(StoreError) {
        try insertBlobs(session, blobs)
        if let skinID = change.skinID {
            try writeSkin(
                session, skinID: skinID, in: next, versions: next.skins[skinID]?.latestVersion.map { [$0] } ?? [])
        } else {
            try writeKillSwitches(session, next.killSwitches)
        }
        if change.action == AuditAction.markScrubDamage, let skinID = change.skinID, let skin = next.skins[skinID] {
            try writeScrubDamage(session, skin)
        }
        try insertAudit(session, entry)
        try finish(session, at: next)
    }

    /// Sets the `scrub_damage` of `skin`'s version rows to their marks (`SkinVersion.scrubDamage`), clearing the
    /// others: the only change `StoreEdit.markScrubDamage` makes to versions, which otherwise never change.
    private static func writeScrubDamage(_ session: PostgresSession, _ skin: SkinState) throws(StoreError) {
        try execute(
            session,
            """
            UPDATE livery_versions SET scrub_damage = NULL WHERE skin_id = $1 AND scrub_damage IS NOT NULL
            """, [.text(skin.id)])
        for version in skin.versions {
            guard let mark = version.scrubDamage else { continue }
            try execute(
                session, "UPDATE livery_versions SET scrub_damage = $3 WHERE skin_id = $1 AND number = $2",
                [
                    .text(skin.id), .int(version.number), .text(mark)
                ])
        }
    }

    /// Writes every row of `snapshot` and `audit` into an empty schema (copying another store).
    static func writeWhole(
        _ session: PostgresSession, snapshot: StoreSnapshot, audit: [AuditEntry], blobs: [String: [UInt8]]
    ) throws(StoreError) {
        try insertBlobs(session, blobs)
        for (skinID, skin) in snapshot.skins.sorted(by: { $0.key < $1.key }) {
            try writeSkin(session, skinID: skinID, in: snapshot, versions: skin.versions)
            if skin.versions.contains(where: { $0.scrubDamage != nil }) { try writeScrubDamage(session, skin) }
        }
        for skinID in snapshot.tombstones.keys.sorted() {
            try writeSkin(session, skinID: skinID, in: snapshot, versions: [])
        }
        try writeKillSwitches(session, snapshot.killSwitches)
        for entry in audit { try insertAudit(session, entry) }
        try finish(session, at: snapshot)
    }

    /// Whether the schema holds nothing yet: revision 0 and no blob.
    static func isEmpty(_ session: PostgresSession) throws(StoreError) -> Bool {
        let blobs = try rows(session, "SELECT count(*) FROM livery_blobs", []) { row throws(PostgresError) in
            try row.int(0)
        }
        return try revision(session, forUpdate: true) == 0 && blobs.first == 0
    }

    private static func insertBlobs(_ session: PostgresSession, _ blobs: [String: [UInt8]]) throws(StoreError) {
        for (digest, bytes) in blobs.sorted(by: { $0.key < $1.key }) {
            try execute(
                session,
                """
                INSERT INTO livery_blobs (sha256, size, bytes) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING
                """, [.text(digest), .int(bytes.count), .bytes(bytes)])
        }
    }

    private static func writeKillSwitches(_ session: PostgresSession, _ switches: KillSwitches) throws(StoreError) {
        var settings = switches.apps.map { ($0.key, $0.value) }
        if let global = switches.global { settings.append(("", global)) }
        for (app, setting) in settings {
            try execute(
                session,
                """
                INSERT INTO livery_kill_switches (app, enabled, reason, actor, changed_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (app) DO UPDATE SET enabled = $2, reason = $3, actor = $4, changed_at = $5
                """,
                [
                    .text(app), .bool(setting.enabled), .text(setting.reason), .text(setting.actor),
                    .int(StoreTime.millis(setting.changedAt))
                ])
        }
    }

    private static func insertAudit(_ session: PostgresSession, _ entry: AuditEntry) throws(StoreError) {
        try execute(
            session,
            """
            INSERT INTO livery_audit (sequence, time, actor, action, skin_id, before, after)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """,
            [
                .int(entry.sequence), .int(StoreTime.millis(entry.time)), .text(entry.actor), .text(entry.action),
                .optional(entry.skinID), entry.before.map(PostgresValue.bytes) ?? .null,
                entry.after.map(PostgresValue.bytes) ?? .null
            ])
    }

    /// Sets the revision counters to `snapshot`'s and sends the notification delivered at commit.
    private static func finish(_ session: PostgresSession, at snapshot: StoreSnapshot) throws(StoreError) {
        try execute(
            session, "UPDATE livery_store SET revision = $1, kill_switch_revision = $2",
            [
                .int(snapshot.revision), .int(snapshot.killSwitches.revision)
            ])
        try execute(
            session, "SELECT pg_notify($1, $2)",
            [
                .text(PostgresStoreSchema.changesChannel), .text(String(snapshot.revision))
            ])
    }

    /// Makes the rows of `skinID` match `next`: a live skin's row, `versions` of it not written yet (versions never
    /// change once written) and its release; or a deleted skin's tombstone, its versions and release removed.
    private static func writeSkin(
        _ session: PostgresSession, skinID: String, in next: StoreSnapshot, versions: [SkinVersion]
    ) throws(StoreError) {
        guard let skin = next.skins[skinID] else {
            let tombstone = next.tombstones[skinID]
            try execute(session, "DELETE FROM livery_releases WHERE skin_id = $1", [.text(skinID)])
            try execute(session, "DELETE FROM livery_versions WHERE skin_id = $1", [.text(skinID)])
            try execute(
                session,
                """
                INSERT INTO livery_skins (id, revision, last_version, deleted) VALUES ($1, $2, $3, true)
                ON CONFLICT (id) DO UPDATE SET revision = $2, last_version = $3, deleted = true
                """,
                [
                    .text(skinID), .int(tombstone?.revision ?? next.revision), .int(tombstone?.lastVersion ?? 0)
                ])
            return
        }
        try execute(
            session,
            """
            INSERT INTO livery_skins (id, revision, last_version, deleted) VALUES ($1, $2, $3, false)
            ON CONFLICT (id) DO UPDATE SET revision = $2, last_version = $3, deleted = false
            """, [.text(skinID), .int(skin.revision), .int(skin.latestVersion?.number ?? 0)])
        for version in versions {
            let inserted = try affected(
                session,
                """
                INSERT INTO livery_versions (skin_id, number, created_at, actor, metadata_sha256, digest)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
                """,
                [
                    .text(skinID), .int(version.number), .int(StoreTime.millis(version.createdAt)),
                    .text(version.actor),
                    .text(version.metadataDigest), .text(version.digest)
                ])
            if inserted > 0 {
                for file in version.files {
                    try execute(
                        session,
                        """
                        INSERT INTO livery_version_files (skin_id, number, path, sha256, size) VALUES ($1, $2, $3, $4, $5)
                        """,
                        [.text(skinID), .int(version.number), .text(file.path), .text(file.sha256), .int(file.size)])
                }
            }
        }
        if let release = skin.release {
            try execute(
                session,
                """
                INSERT INTO livery_releases (skin_id, version, document, released_at, actor) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (skin_id) DO UPDATE SET version = $2, document = $3, released_at = $4, actor = $5
                """,
                [
                    .text(skinID), .int(release.version), .bytes(release.document),
                    .int(StoreTime.millis(release.releasedAt)), .text(release.actor)
                ])
        } else {
            try execute(session, "DELETE FROM livery_releases WHERE skin_id = $1", [.text(skinID)])
        }
    }

    /// Audit entries after `since`, oldest first, at most `limit`.
    static func audit(_ session: PostgresSession, since: AuditCursor?, limit: Int) throws(StoreError) -> [AuditEntry] {
        let columns = "SELECT sequence, time, actor, action, skin_id, before, after FROM livery_audit"
        let (condition, parameters): (String, [PostgresValue]) =
            switch since {
            case nil: ("", [])
            case .afterSequence(let sequence): (" WHERE sequence > $2", [.int(sequence)])
            case .time(let time): (" WHERE time >= $2", [.int(StoreTime.millis(time))])
            }
        return try rows(session, columns + condition + " ORDER BY sequence LIMIT $1", [.int(limit)] + parameters) {
            row throws(PostgresError) in
            AuditEntry(
                sequence: try row.int(0), time: StoreTime.date(Int64(try row.int(1))), actor: try row.string(2),
                action: try row.string(3), skinID: try row.optionalString(4), before: try row.optionalBytes(5),
                after: try row.optionalBytes(6))
        }
    }

    /// The stored bytes of blob `digest`, nil when there is no such row.
    static func blob(_ session: PostgresSession, digest: String) throws(StoreError) -> [UInt8]? {
        try rows(session, "SELECT bytes FROM livery_blobs WHERE sha256 = $1", [.text(digest)]) {
            row throws(PostgresError) in
            try row.bytes(0)
        }.first
    }

    // MARK: Helpers

    private static func rows<T>(
        _ session: PostgresSession, _ sql: String, _ parameters: [PostgresValue],
        _ decode: (PostgresRow) throws(PostgresError) -> T
    ) throws(StoreError) -> [T] {
        do throws(PostgresError) {
            return try session.query(sql, parameters).rows.map { row throws(PostgresError) in try decode(row) }
        } catch {
            throw PostgresSkinStore.storeError(error)
        }
    }

    private static func execute(
        _ session: PostgresSession, _ sql: String, _ parameters: [PostgresValue]
    ) throws(StoreError) {
        _ = try affected(session, sql, parameters)
    }

    private static func affected(
        _ session: PostgresSession, _ sql: String, _ parameters: [PostgresValue]
    ) throws(StoreError) -> Int {
        do throws(PostgresError) {
            return try session.query(sql, parameters).affectedRows
        } catch {
            throw PostgresSkinStore.storeError(error)
        }
    }
}
