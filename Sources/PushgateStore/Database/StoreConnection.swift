import PushgateCore

/// A value bound to a numbered statement parameter.
public enum SQLValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case null
}

/// What the store logic shared by the SQLite and PostgreSQL stores (binding rules, migrations,
/// group commit) needs of a database connection.
///
/// Statements use numbered parameters written `?1`, `?2`, … (SQLite's form; the PostgreSQL
/// connection reads them as `$1`, `$2`, …). Implementations prepare each distinct statement
/// once and reuse it. Calls block until the database answers: owners run them on a dedicated
/// queue, never on the cooperative pool.
public protocol StoreConnection: AnyObject, SendableMetatype {
    /// Runs a script of one or more statements that take no parameters.
    func execute(_ script: String) throws

    /// Runs one statement; returns how many rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLValue]) throws -> Int

    /// Runs a query; returns the first column of every row as text (NULLs skipped).
    func texts(_ sql: String, _ parameters: [SQLValue]) throws -> [String]

    /// Runs a query; returns the first column of its first row as an integer, or `nil` when
    /// there is no row or the value is NULL.
    func integer(_ sql: String, _ parameters: [SQLValue]) throws -> Int64?

    /// Runs `body` in a transaction that excludes every other writer of the same data (also
    /// from other processes); commits when `body` returns, rolls back and rethrows the first
    /// error when it or the commit throws.
    func writeTransaction<R>(_ body: () throws -> R) throws -> R

    /// The schema version the database is at (0 for a fresh one).
    func schemaVersion() throws -> Int

    /// Records the schema version; inside a transaction it commits or rolls back with it.
    func setSchemaVersion(_ version: Int32) throws

    /// From now on the connection is used only on `owner`'s queue, and in debug builds checks
    /// that every statement runs there (docs/store.md, "Concurrency"); call it on that queue.
    func confine(to owner: DispatchQueueExecutor)

    /// Runs `body` with every wait for the database server bounded by `deadline`.
    func withDeadline<R>(_ deadline: ContinuousClock.Instant, _ body: () throws -> R) throws -> R
}

extension StoreConnection {
    /// A database file has no server to wait for: SQLite's busy timeout bounds its waits.
    public func withDeadline<R>(_ deadline: ContinuousClock.Instant, _ body: () throws -> R) throws -> R { try body() }
}
