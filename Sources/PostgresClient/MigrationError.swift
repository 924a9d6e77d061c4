/// Why `Migrator.migrate` did not bring the schema up to date.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The list handed to the migrator is not strictly increasing positive versions.
    case invalidMigrationList(String)
    /// The database holds a schema version this binary does not know: a newer binary migrated it. Starting would
    /// risk misreading or damaging its data, so it stops here.
    case databaseNewer(databaseVersion: Int, knownVersion: Int)
    /// A step failed (its transaction was rolled back: nothing of this run is applied), or PostgreSQL failed.
    case failed(version: Int?, PostgresError)

    public var description: String {
        switch self {
        case .invalidMigrationList(let reason): "invalid migration list: \(reason)"
        case .databaseNewer(let database, let known):
            "the database schema is at version \(database), newer than this binary knows (\(known)): "
                + "run a binary at least as new, or restore a database that matches this one"
        case .failed(let version?, let error): "migration \(version) failed: \(error)"
        case .failed(nil, let error): "migrating failed: \(error)"
        }
    }
}
