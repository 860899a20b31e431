/// Owns one database connection and runs every use of it on a dedicated serial queue, so the
/// blocking calls (SQLite steps and fsyncs, libpq round trips) never hold a cooperative-pool thread.
actor ConnectionWorker<Connection: StoreConnection> {
    private let executor: DispatchQueueExecutor
    private var connection: Connection?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A worker with no connection yet; its queue is named `label`.
    init(label: String) { executor = DispatchQueueExecutor(label: label) }

    /// Opens the connection on the worker's queue with `open`, replacing none.
    func open(_ open: @Sendable () throws -> Connection) throws {
        precondition(connection == nil, "ConnectionWorker.open called twice")
        connection = try open()
    }

    /// Runs `body` with the connection on the worker's queue.
    /// - Throws: ``StoreClosedError`` once ``close()`` has run; whatever `body` throws.
    func run<R: Sendable>(_ body: @Sendable (Connection) throws -> R) throws -> R {
        guard let connection else { throw StoreClosedError() }
        return try body(connection)
    }

    /// Schedules `body` on the worker's queue and returns at once; `body` gets the connection,
    /// or nil once ``close()`` has run. Saves the task hop of ``run(_:)`` for callers that
    /// report results themselves.
    nonisolated func enqueue(_ body: @escaping @Sendable (Connection?) -> Void) {
        executor.execute { self.assumeIsolated { worker in body(worker.connection) } }
    }

    /// Releases the connection, which closes it; later ``run(_:)`` calls throw ``StoreClosedError``.
    func close() { connection = nil }
}
