/// The ``BindingStore`` on a PostgreSQL database, which several relay instances may share.
///
/// The binding rules are the SQLite store's (``BindingRules``, the same statements). Writes go
/// through one connection and are group-committed like the SQLite store's; each write
/// transaction first takes an advisory lock, so writers in every relay instance take turns and
/// the count-then-insert rules hold across instances. Each call returns only after its
/// transaction committed with `synchronous_commit` on (flushed to the server's WAL). Reads use
/// a small pool of further connections. Every connection lives on its own serial queue.
public typealias PostgreSQLBindingStore = GroupCommittedBindings<PostgreSQLConnection>

extension GroupCommittedBindings where Connection == PostgreSQLConnection {
    /// Shown in `pg_stat_activity` for the store's connections.
    public static var applicationName: String { "pushgate-bindings" }

    /// Connects to `url`, migrating the schema, with one writer and `readers` reader connections.
    /// - Parameters:
    ///   - policy: the caps every register enforces; `maxTokens` counts over every relay
    ///     instance sharing the database.
    ///   - callTimeout: how long each call may take from being asked, its wait for the connection
    ///     included; past it the call fails and its connection is dropped (``ConnectionWorker``).
    /// - Throws: ``PostgreSQLError`` (the password never appears in it), ``MigrationError``
    ///   (a database from a newer build).
    public static func open(url: PostgreSQLURL, policy: BindingPolicy = BindingPolicy(),
                            readers readerCount: Int = 2, callTimeout: Duration? = nil) async throws -> PostgreSQLBindingStore {
        precondition(readerCount > 0, "at least one reader connection")
        let writer = ConnectionWorker<PostgreSQLConnection>(label: "pushgate.store.pg.writer", callTimeout: callTimeout)
        try await writer.open {
            try PostgreSQLSchema.migrate(url: url, applicationName: applicationName)
            return try PostgreSQLConnection(url: url, session: .init(
                writeLockKey: PostgreSQLSchema.bindingsLockKey, setup: [durableCommits], applicationName: applicationName,
                callTimeout: callTimeout))
        }
        var readers: [ConnectionWorker<PostgreSQLConnection>] = []
        for index in 0 ..< readerCount {
            let reader = ConnectionWorker<PostgreSQLConnection>(label: "pushgate.store.pg.reader\(index)", callTimeout: callTimeout)
            do {
                try await reader.open {
                    try PostgreSQLConnection(url: url, session: .init(writeLockKey: PostgreSQLSchema.bindingsLockKey,
                                                                      applicationName: applicationName, callTimeout: callTimeout))
                }
            } catch {
                await writer.close()
                for opened in readers { await opened.close() }
                throw error
            }
            readers.append(reader)
        }
        return PostgreSQLBindingStore(writer: writer, readers: readers, policy: policy)
    }

    /// An acknowledged register must be on disk: a server or role configured with
    /// `synchronous_commit = off` is switched back to `on` for the writer's session.
    static var durableCommits: String {
        "SELECT CASE WHEN current_setting('synchronous_commit') = 'off' THEN set_config('synchronous_commit', 'on', false) END"
    }
}
