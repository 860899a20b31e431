extension PostgreSQLConnection: StoreConnection {
    @discardableResult
    public func run(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try query(sql, parameters).changedRows
    }

    public func texts(_ sql: String, _ parameters: [SQLValue]) throws -> [String] {
        let result = try retryingIfDropped { try query(sql, parameters) }
        return (0 ..< result.rowCount).compactMap { result.string(row: $0, column: 0) }
    }

    public func integer(_ sql: String, _ parameters: [SQLValue]) throws -> Int64? {
        try retryingIfDropped { try query(sql, parameters) }.string(row: 0, column: 0).flatMap { Int64($0) }
    }

    /// The version kept in the one-row `schema_version` table; 0 while that table does not exist.
    public func schemaVersion() throws -> Int {
        guard try integer(SchemaVersionSQL.tableExists, []) == 1 else { return 0 }
        return Int(try integer(SchemaVersionSQL.read, []) ?? 0)
    }

    public func setSchemaVersion(_ version: Int32) throws {
        try execute(SchemaVersionSQL.create)
        try run(SchemaVersionSQL.write, [.integer(Int64(version))])
    }
}

/// Where the PostgreSQL schema version lives (SQLite keeps it in `PRAGMA user_version`).
private enum SchemaVersionSQL {
    static let tableExists = "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_version'"
    static let read = "SELECT version FROM schema_version WHERE id = 1"
    static let create = "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)"
    static let write = "INSERT INTO schema_version (id, version) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version"
}
