/// The ``BindingStore`` on a SQLite file (or `:memory:`).
///
/// Writes go through one connection on a dedicated serial queue and are group-committed:
/// writes that arrive while a transaction is committing share the next one, and each call
/// returns only after its transaction is durable (WAL, `synchronous=FULL`). Reads use a second,
/// read-only connection on its own queue, which WAL lets run beside the writer.
public typealias SQLiteBindingStore = GroupCommittedBindings<SQLiteConnection>

extension GroupCommittedBindings where Connection == SQLiteConnection {
    /// Opens the store at `path` (its directory is created, mode 0700), migrating the schema.
    /// - Parameter policy: the caps every register enforces.
    /// - Throws: ``SQLiteError``, ``MigrationError`` (a database from a newer build),
    ///   ``DatabaseDirectory/CreationError``.
    public static func open(path: String, policy: BindingPolicy = BindingPolicy()) async throws -> SQLiteBindingStore {
        let writer = ConnectionWorker<SQLiteConnection>(label: "pushgate.store.writer")
        try await writer.open {
            try DatabaseDirectory.prepare(for: path)
            let connection = try SQLiteConnection(path: path)
            try Migrator.migrate(connection, with: RelaySchema.migrations)
            return connection
        }
        // A second connection to ":memory:" would be another, empty database.
        guard path != SQLiteConnection.memoryPath else {
            return SQLiteBindingStore(writer: writer, readers: [writer], policy: policy)
        }
        let reader = ConnectionWorker<SQLiteConnection>(label: "pushgate.store.reader")
        try await reader.open { try SQLiteConnection(path: path, access: .readOnly) }
        return SQLiteBindingStore(writer: writer, readers: [reader], policy: policy)
    }
}
