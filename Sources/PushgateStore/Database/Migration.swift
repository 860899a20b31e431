/// One numbered schema step: `sql` takes a database at `version - 1` to `version`.
public struct Migration: Sendable {
    /// The schema version after this step; the first migration is 1.
    public let version: Int32
    /// The statements of the step, run as one script.
    public let sql: String

    public init(version: Int32, sql: String) {
        self.version = version
        self.sql = sql
    }
}

/// Why migrating a database failed.
public struct MigrationError: Error, CustomStringConvertible, Sendable {
    /// The database was written by a newer version of the code.
    public static func databaseTooNew(found: Int, known: Int) -> MigrationError {
        MigrationError(description: "database schema version \(found) is newer than this build knows (\(known)); "
            + "run a newer release or restore a matching backup")
    }

    /// The migration list is not numbered 1, 2, 3, … in order.
    public static func badNumbering(expected: Int32, found: Int32) -> MigrationError {
        MigrationError(description: "migration list out of order: expected version \(expected), found \(found)")
    }

    public let description: String
}

/// Applies ``Migration``s, tracking the version through ``StoreConnection/schemaVersion()``
/// (`PRAGMA user_version` in SQLite, the `schema_version` table in PostgreSQL).
public enum Migrator {
    /// Brings the database up to the last of `migrations`, each step in its own transaction.
    ///
    /// Refuses a database whose version is newer than the last migration.
    /// - Returns: the versions that were applied.
    @discardableResult
    public static func migrate(_ connection: some StoreConnection, with migrations: [Migration]) throws -> [Int32] {
        for (offset, migration) in migrations.enumerated() where migration.version != Int32(offset + 1) {
            throw MigrationError.badNumbering(expected: Int32(offset + 1), found: migration.version)
        }
        let known = migrations.count
        let found = try connection.schemaVersion()
        guard found <= known else { throw MigrationError.databaseTooNew(found: found, known: known) }
        var applied: [Int32] = []
        for migration in migrations {
            // The version is read again inside the write transaction so two processes
            // migrating the same database at the same moment cannot apply a step twice.
            let didApply = try connection.writeTransaction { () throws -> Bool in
                guard try connection.schemaVersion() < Int(migration.version) else { return false }
                try connection.execute(migration.sql)
                try connection.setSchemaVersion(migration.version)
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }
}
