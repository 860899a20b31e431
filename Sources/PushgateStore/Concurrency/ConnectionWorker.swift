import PushgateCore

/// Owns one database connection and runs every use of it on a dedicated serial queue, so the
/// blocking calls (SQLite steps and fsyncs, libpq round trips) never hold a cooperative-pool thread.
///
/// With a `callTimeout`, each call must be answered within that time of being asked, its wait
/// for the queue included: a call still queued at its deadline fails without touching the
/// database, so a stalled server cannot pile up calls that each wait their own full timeout.
actor ConnectionWorker<Connection: StoreConnection> {
    private let executor: DispatchQueueExecutor
    private var connection: Connection?
    /// How long a call may take from being asked; `nil`: as long as the database takes.
    let callTimeout: Duration?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A worker with no connection yet; its queue is named `label`.
    init(label: String, callTimeout: Duration? = nil) {
        executor = DispatchQueueExecutor(label: label)
        self.callTimeout = callTimeout
    }

    /// The deadline of a call asked now, when calls have one.
    nonisolated func callDeadline() -> ContinuousClock.Instant? { callTimeout.map { ContinuousClock.now + $0 } }

    /// Opens the connection on the worker's queue with `open`, replacing none.
    func open(_ open: @Sendable () throws -> Connection) throws {
        precondition(connection == nil, "ConnectionWorker.open called twice")
        let opened = try open()
        opened.confine(to: executor)
        connection = opened
    }

    /// Runs `body` with the connection on the worker's queue, within the call's deadline.
    /// - Throws: ``StoreClosedError`` once ``close()`` has run; whatever `body` throws.
    nonisolated(nonsending) func run<R: Sendable>(_ body: @Sendable (Connection) throws -> R) async throws -> R {
        try await run(by: callDeadline(), body)
    }

    private func run<R: Sendable>(by deadline: ContinuousClock.Instant?, _ body: @Sendable (Connection) throws -> R) throws -> R {
        guard let connection else { throw StoreClosedError() }
        guard let deadline else { return try body(connection) }
        return try connection.withDeadline(deadline) { try body(connection) }
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
