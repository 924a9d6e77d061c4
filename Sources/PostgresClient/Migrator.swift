/// Brings a database to the newest of an ordered list of migrations.
///
/// `migrate` runs in one transaction that first takes a transaction-level advisory lock (`pg_advisory_xact_lock`),
/// so of several processes starting together one migrates and the others wait, then find nothing left to do. The
/// lock lives exactly as long as that transaction, so it works through a pool that hands server sessions out per
/// transaction (PgBouncer's transaction mode) and never outlives a migrator that died. The missing steps run in
/// that transaction together with their rows in the version table, so a failure leaves the schema as it was.
public struct Migrator: Sendable {
    /// The steps, in increasing version order.
    public let migrations: [Migration]
    /// The table recording applied versions (`version`, `applied_at`). Default `schema_version`.
    public let table: String
    /// The advisory lock key serialising migrators of this schema.
    public let lockKey: Int64

    /// Checks that versions are positive and strictly increasing.
    public init(
        migrations: [Migration], table: String = "schema_version", lockKey: Int64 = 0x6C69_7665_7279_0001
    ) throws(MigrationError) {
        var previous = 0
        for migration in migrations {
            guard migration.version > previous else {
                throw .invalidMigrationList(
                    "version \(migration.version) follows \(previous); versions must be positive and increasing")
            }
            previous = migration.version
        }
        guard table.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
            let first = table.first, first.isLetter || first == "_"
        else { throw .invalidMigrationList("table name \(table) is not a plain identifier") }
        self.migrations = migrations
        self.table = table
        self.lockKey = lockKey
    }

    /// The newest version this list knows, 0 for an empty list.
    public var knownVersion: Int { migrations.last?.version ?? 0 }

    /// What a `migrate` call did.
    public struct Report: Sendable, Equatable {
        /// The versions this call applied, in order (empty when the schema was already current).
        public var applied: [Int]
        /// The schema version afterwards.
        public var version: Int

        public init(applied: [Int], version: Int) {
            self.applied = applied
            self.version = version
        }
    }

    /// Applies the missing migrations on `connection` (blocking it for the whole run) and returns what it did.
    ///
    /// - Throws: `databaseNewer` when the database records a version above `knownVersion` (nothing is changed);
    ///   `failed` when a step or PostgreSQL fails (the run's transaction is rolled back).
    public func migrate(_ connection: PostgresConnection) async throws(MigrationError) -> Report {
        let result: Result<Report, MigrationError>
        do {
            result = try await connection.withSession { session in
                Result { () throws(MigrationError) in try migrate(session) }
            }
        } catch {
            throw .failed(version: nil, PostgresConnection.typed(error))
        }
        return try result.get()
    }

    /// `migrate` on a blocking session (on its connection's thread).
    public func migrate(_ session: PostgresSession) throws(MigrationError) -> Report {
        var version: Int? = nil
        do {
            return try session.transaction { session in
                try session.query("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
                try session.query(
                    """
                    CREATE TABLE IF NOT EXISTS \(table) (
                        version integer PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                let applied = Set(try session.query("SELECT version FROM \(table)").rows.map { try $0.int(0) })
                if let newest = applied.max(), newest > knownVersion {
                    throw MigrationError.databaseNewer(databaseVersion: newest, knownVersion: knownVersion)
                }
                var report = Report(applied: [], version: applied.max() ?? 0)
                for migration in migrations where !applied.contains(migration.version) {
                    version = migration.version
                    try session.execute(script: migration.sql)
                    try session.query("INSERT INTO \(table) (version) VALUES ($1)", [.int(migration.version)])
                    report.applied.append(migration.version)
                    report.version = max(report.version, migration.version)
                }
                return report
            }
        } catch let error as MigrationError {
            throw error
        } catch {
            throw .failed(version: version, PostgresConnection.typed(error))
        }
    }
}
