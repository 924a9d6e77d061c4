import PostgresClient

/// The PostgreSQL schema of `PostgresSkinStore`, as versioned migrations (applied under an advisory lock, so
/// replicas starting together migrate once). Never edit a released step: add one.
///
/// - `livery_store`: one row, the store revision and the kill switches' revision (the counter every change locks).
/// - `livery_blobs`: content-addressed bytes (file contents and version metadata) keyed by SHA-256, with size.
/// - `livery_skins`: every skin ever created, live or deleted (a tombstone keeps its revision and last number).
/// - `livery_versions`, `livery_version_files`: the versions of live skins and their files (`scrub_damage`, from
///   step 2: what the last scrub that found the version damaged said).
/// - `livery_releases`, `livery_kill_switches` (`app` '' is the global switch), `livery_audit` (one row per change,
///   `sequence` = the revision it made).
///
/// - `livery_reports`, `livery_report_secret` (step 3): what phones reported, and the secret their device ids are
///   hashed under (`PostgresReportLedger`).
///
/// Times are milliseconds since 1970 (`bigint`), as the file store keeps them.
public enum PostgresStoreSchema {
    /// The steps, oldest first.
    public static let migrations = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE livery_store (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    revision bigint NOT NULL,
                    kill_switch_revision bigint NOT NULL
                );
                INSERT INTO livery_store (revision, kill_switch_revision) VALUES (0, 0);
                CREATE TABLE livery_blobs (
                    sha256 text PRIMARY KEY,
                    size bigint NOT NULL,
                    bytes bytea NOT NULL
                );
                CREATE TABLE livery_skins (
                    id text PRIMARY KEY,
                    revision bigint NOT NULL,
                    last_version integer NOT NULL,
                    deleted boolean NOT NULL
                );
                CREATE TABLE livery_versions (
                    skin_id text NOT NULL REFERENCES livery_skins (id),
                    number integer NOT NULL,
                    created_at bigint NOT NULL,
                    actor text NOT NULL,
                    metadata_sha256 text NOT NULL REFERENCES livery_blobs (sha256),
                    digest text NOT NULL,
                    PRIMARY KEY (skin_id, number)
                );
                CREATE TABLE livery_version_files (
                    skin_id text NOT NULL,
                    number integer NOT NULL,
                    path text NOT NULL,
                    sha256 text NOT NULL REFERENCES livery_blobs (sha256),
                    size bigint NOT NULL,
                    PRIMARY KEY (skin_id, number, path),
                    FOREIGN KEY (skin_id, number) REFERENCES livery_versions ON DELETE CASCADE
                );
                CREATE TABLE livery_releases (
                    skin_id text PRIMARY KEY,
                    version integer NOT NULL,
                    document bytea NOT NULL,
                    released_at bigint NOT NULL,
                    actor text NOT NULL,
                    FOREIGN KEY (skin_id, version) REFERENCES livery_versions
                );
                CREATE TABLE livery_kill_switches (
                    app text PRIMARY KEY,
                    enabled boolean NOT NULL,
                    reason text NOT NULL,
                    actor text NOT NULL,
                    changed_at bigint NOT NULL
                );
                CREATE TABLE livery_audit (
                    sequence bigint PRIMARY KEY,
                    time bigint NOT NULL,
                    actor text NOT NULL,
                    action text NOT NULL,
                    skin_id text,
                    before bytea,
                    after bytea
                );
                CREATE INDEX livery_audit_time ON livery_audit (time);
                """),
        // What the last scrub that found a version damaged said (`SkinVersion.scrubDamage`), so every replica
        // leaves it out; NULL when none.
        Migration(
            version: 2,
            sql: """
                ALTER TABLE livery_versions ADD COLUMN scrub_damage text;
                """),
        // What phones reported (`PostgresReportLedger`): one row per sign, keyed device hash and outcome, so a device
        // counts once across replicas; the secret devices are hashed under. Never part of a change's transaction.
        Migration(
            version: 3,
            sql: """
                CREATE TABLE livery_report_secret (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    secret bytea NOT NULL
                );
                CREATE TABLE livery_reports (
                    sign text NOT NULL,
                    device text NOT NULL,
                    outcome text NOT NULL CHECK (outcome IN ('applied', 'failed')),
                    stage text,
                    skin_id text NOT NULL,
                    version integer NOT NULL,
                    variant text NOT NULL,
                    platform text NOT NULL,
                    app_version text NOT NULL,
                    reported_at bigint NOT NULL,
                    recorded_at bigint NOT NULL,
                    PRIMARY KEY (sign, device, outcome)
                );
                CREATE INDEX livery_reports_version ON livery_reports (skin_id, version, recorded_at);
                """)
    ]

    /// The migrator of this schema (table `livery_schema_version`).
    public static func migrator() throws(MigrationError) -> Migrator {
        try Migrator(migrations: migrations, table: "livery_schema_version", lockKey: migrationLockKey)
    }

    /// The advisory lock key serializing migrations of this schema.
    public static let migrationLockKey: Int64 = 0x6C69_7665_7279_0001

    /// The channel each change notifies, with the new revision as payload.
    public static let changesChannel = "livery_changes"
}
