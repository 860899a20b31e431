import PushgateCore
import PushgateStore

/// `host.sqlite`'s one connection and the serial queue it runs on: opened and migrated here,
/// then used only by the actors that share this executor — ``HostStore`` (alert tokens, badge,
/// relay registrations, outbox, hapi devices, imported data), ``LiveActivityStore`` and the
/// Live Activity engine's job order — so every statement runs on that queue, one at a time,
/// never on an event loop or a caller's thread.
///
/// - Important: docs/host.md "Store" — one owner per connection (docs/store.md): WAL, busy
///   timeout, numbered migrations.
public actor HostDatabase {
    /// The queue every user of the connection runs on.
    nonisolated let executor: DispatchQueueExecutor
    /// Lent only to code already running on `executor` (``connection(isolation:)``); debug
    /// builds check each statement runs there.
    private nonisolated(unsafe) let connection: SQLiteConnection

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating with mode 0600, and migrating) the database at `path`, on the queue.
    public init(path: String) throws {
        let executor = DispatchQueueExecutor(label: "pushgate.host.database")
        try DatabaseDirectory.prepare(for: path)
        connection = try executor.runAndWait {
            // Per-event bookkeeping (badge tags, registration cache, Live Activity rows) needs no
            // fsync of its own; what a phone was told is stored does (`durably`).
            let connection = try SQLiteConnection(path: path, durability: .normal)
            connection.confine(to: executor)
            try Migrator.migrate(connection, with: HostMigrations.all)
            return connection
        }
        self.executor = executor
    }

    /// The connection, to an actor that runs on this database's executor.
    func connection(isolation: isolated any Actor = #isolation) -> SQLiteConnection {
        connection
    }

    /// Runs `body` with the connection on the queue and waits: for reads a store makes while it
    /// is built, before any of its calls can run.
    nonisolated func readAtOpen<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        try executor.runAndWait { try body(connection) }
    }
}
