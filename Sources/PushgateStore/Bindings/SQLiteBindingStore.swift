/// The ``BindingStore`` on a SQLite file (or `:memory:`).
///
/// Writes go through one connection on a dedicated serial queue and are group-committed:
/// writes that arrive while a transaction is committing share the next one, and each call
/// returns only after its transaction is durable (WAL, `synchronous=FULL`). Reads use a second,
/// read-only connection on its own queue, which WAL lets run beside the writer.
public final class SQLiteBindingStore: BindingStore {
    private let bindings: GroupCommittedBindings<SQLiteConnection>

    private init(writer: ConnectionWorker<SQLiteConnection>, reader: ConnectionWorker<SQLiteConnection>, maxTokens: Int) {
        bindings = GroupCommittedBindings(writer: writer, readers: [reader], maxTokens: maxTokens)
    }

    /// Opens the store at `path` (its directory is created, mode 0700), migrating the schema.
    /// - Parameter maxTokens: how many distinct (token, kind) pairs may be bound at once.
    /// - Throws: ``SQLiteError``, ``MigrationError`` (a database from a newer build),
    ///   ``DatabaseDirectory/CreationError``.
    public static func open(path: String, maxTokens: Int = BindingLimits.defaultMaxTokens) async throws -> SQLiteBindingStore {
        precondition(maxTokens >= 0, "maxTokens must not be negative")
        let writer = ConnectionWorker<SQLiteConnection>(label: "pushgate.store.writer")
        try await writer.open {
            try DatabaseDirectory.prepare(for: path)
            let connection = try SQLiteConnection(path: path)
            try Migrator.migrate(connection, with: RelaySchema.migrations)
            return connection
        }
        // A second connection to ":memory:" would be another, empty database.
        guard path != SQLiteConnection.memoryPath else {
            return SQLiteBindingStore(writer: writer, reader: writer, maxTokens: maxTokens)
        }
        let reader = ConnectionWorker<SQLiteConnection>(label: "pushgate.store.reader")
        try await reader.open { try SQLiteConnection(path: path, access: .readOnly) }
        return SQLiteBindingStore(writer: writer, reader: reader, maxTokens: maxTokens)
    }

    /// Write transactions committed so far (each may hold many writes), for tests and metrics.
    public var commitCount: Int { bindings.commitCount }

    public func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64) async throws -> RegisterOutcome {
        try await bindings.register(token: token, kind: kind, serverId: serverId, nowMs: nowMs)
    }

    public func unregister(token: String, kind: BindingKind, serverId: String) async throws -> UnregisterOutcome {
        try await bindings.unregister(token: token, kind: kind, serverId: serverId)
    }

    public func boundTokens(_ tokens: [String], kind: BindingKind, serverId: String) async throws -> Set<String> {
        try await bindings.boundTokens(tokens, kind: kind, serverId: serverId)
    }

    @discardableResult
    public func deleteToken(_ token: String, kind: BindingKind) async throws -> Int {
        try await bindings.deleteToken(token, kind: kind)
    }

    @discardableResult
    public func removeBinding(token: String, kind: BindingKind, serverId: String) async throws -> Bool {
        try await bindings.removeBinding(token: token, kind: kind, serverId: serverId)
    }

    public func count() async throws -> Int { try await bindings.count() }

    /// Answers every write already accepted, then closes every connection; later calls throw
    /// ``StoreClosedError``.
    public func close() async { await bindings.close() }
}
