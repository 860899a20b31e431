internal import CSQLite
import Foundation
import PushgateCore

/// One SQLite connection, configured for a service database: write-ahead log, `synchronous=FULL`
/// (or `NORMAL`, see ``Durability``), a busy timeout, foreign keys on, and a cache of prepared
/// statements.
///
/// Not thread-safe (opened with `SQLITE_OPEN_NOMUTEX`): its owner uses it from one thread
/// at a time, from an actor running on a serial queue. Once ``confine(to:)`` names that queue,
/// debug builds check every use runs there (docs/store.md).
public final class SQLiteConnection {
    /// Whether the connection may write.
    public enum Access: Sendable {
        /// Read and write; the file is created when missing and switched to WAL mode.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
    }

    /// When a commit reaches the disk.
    public enum Durability: Sendable {
        /// `synchronous=FULL`: every commit is fsynced before it returns; survives power loss.
        case full
        /// `synchronous=NORMAL` (WAL): a commit survives the process being killed; the last
        /// commits before a power loss may be lost. Writes that must not be lost go through
        /// ``durably(_:)``.
        case normal

        var pragma: String { self == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL" }
    }

    /// The special path that opens a private in-memory database.
    public static let memoryPath = ":memory:"

    /// The path the connection was opened with.
    public let path: String
    private let handle: OpaquePointer
    private let durability: Durability
    private var statements: [String: SQLiteStatement] = [:]
    #if DEBUG
    /// The executor whose queue alone may use the connection, once confined.
    private var owner: DispatchQueueExecutor?
    #endif

    /// Opens (and for `.readWrite`, creates) the database at `path`. A new file gets mode 0600
    /// (a umask only takes bits away), and so do its `-wal` and `-shm` files: SQLite gives them the
    /// database file's mode.
    public init(path: String, access: Access = .readWrite, busyTimeoutMilliseconds: Int32 = 5_000,
                durability: Durability = .full) throws {
        if access == .readWrite, path != Self.memoryPath, !FileManager.default.fileExists(atPath: path) {
            // SQLite would create it 0644 less the umask: device tokens readable by every local user.
            try PrivateFile.create(path, contents: [])
        }
        let accessFlags = access == .readWrite ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY
        let flags = accessFlags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK, let db else {
            let error = SQLiteError(result: result, db: db, operation: "open")
            sqlite3_close_v2(db)
            throw error
        }
        self.path = path
        self.handle = db
        self.durability = durability
        try configure(access: access, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    deinit {
        statements.removeAll()
        // v2 defers the close should a statement still be alive somewhere.
        sqlite3_close_v2(handle)
    }

    private func configure(access: Access, busyTimeoutMilliseconds: Int32) throws {
        try check(sqlite3_busy_timeout(handle, busyTimeoutMilliseconds), "busy_timeout")
        try execute("PRAGMA foreign_keys = ON")
        guard access == .readWrite else { return }
        let mode = try withStatement("PRAGMA journal_mode = WAL") { statement in
            try statement.step() ? statement.string(at: 0) ?? "" : ""
        }
        // An in-memory database has no file to log to and reports "memory".
        guard mode == "wal" || (path == Self.memoryPath && mode == "memory") else {
            throw SQLiteError(code: SQLITE_ERROR, message: "journal_mode is '\(mode)', expected 'wal'", operation: "open")
        }
        try execute(durability.pragma)
    }

    /// From now on the connection is used only on `owner`'s queue: debug builds check each
    /// statement runs there; release builds compile the check out.
    public func confine(to owner: DispatchQueueExecutor) {
        #if DEBUG
        owner.checkIsolated()
        self.owner = owner
        #endif
    }

    /// Stops on a use outside the owner's queue (debug builds only).
    @inline(__always)
    private func checkOwner() {
        #if DEBUG
        owner?.checkIsolated()
        #endif
    }

    /// Runs `body` (outside any transaction) with `synchronous=FULL`, so the commits it makes
    /// are on disk when it returns even on a ``Durability/normal`` connection.
    public func durably<R>(_ body: () throws -> R) throws -> R {
        guard durability == .normal else { return try body() }
        try execute(Durability.full.pragma)
        defer { try? execute(Durability.normal.pragma) }
        return try body()
    }

    /// Runs one or more SQL statements that take no parameters and return no rows of interest.
    public func execute(_ sql: String) throws {
        if let error = failure(executing: sql) { throw error }
    }

    /// Runs `sql` like ``execute(_:)`` and returns its failure instead of throwing it.
    func failure(executing sql: String) -> SQLiteError? {
        checkOwner()
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard result != SQLITE_OK else { return nil }
        let error = SQLiteError(result: result, db: handle, operation: "execute", sql: sql)
        guard let message else { return error }
        return SQLiteError(code: error.code, extendedCode: error.extendedCode,
                           message: String(cString: message), operation: "execute", sql: sql)
    }

    /// Lends the cached prepared statement for `sql` to `body`, then resets it and clears its bindings.
    ///
    /// A nested call with the same SQL gets a statement of its own.
    public func withStatement<R>(_ sql: String, _ body: (SQLiteStatement) throws -> R) throws -> R {
        checkOwner()
        // Taken out of the cache while lent, so a nested borrow cannot reuse it mid-step.
        let statement = try statements.removeValue(forKey: sql) ?? SQLiteStatement(db: handle, sql: sql)
        defer {
            statement.recycle()
            statements[sql] = statement
        }
        return try body(statement)
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The schema version kept in the database header (`PRAGMA user_version`).
    public func userVersion() throws -> Int {
        try withStatement("PRAGMA user_version") { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// Sets `PRAGMA user_version`; inside a transaction it commits or rolls back with it.
    public func setUserVersion(_ version: Int32) throws {
        // PRAGMA takes no parameters; an Int32 cannot carry anything but digits.
        try execute("PRAGMA user_version = \(version)")
    }

    /// Replaces this database's content with a consistent copy of `source`'s, through SQLite's
    /// online backup in one step: one read transaction on `source`, so its writers go on (WAL)
    /// while the copy is made. Returns the pages copied.
    public func copy(from source: SQLiteConnection) throws -> Int {
        checkOwner()
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteError(result: sqlite3_errcode(handle), db: handle, operation: "backup")
        }
        var result = sqlite3_backup_step(backup, -1)
        // A lock held elsewhere for a moment (a checkpoint): wait for it as the busy timeout would, 5 s at most.
        var waits = 0
        while result & 0xFF == SQLITE_BUSY || result & 0xFF == SQLITE_LOCKED, waits < 1_000 {
            sqlite3_sleep(5)
            waits += 1
            result = sqlite3_backup_step(backup, -1)
        }
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE else { throw SQLiteError(result: result, db: handle, operation: "backup") }
        try check(finished, "backup")
        return pages
    }

    private func check(_ result: Int32, _ operation: String) throws {
        guard result == SQLITE_OK else { throw SQLiteError(result: result, db: handle, operation: operation) }
    }
}

// One thread at a time: share it through an actor, never across tasks directly.
@available(*, unavailable)
extension SQLiteConnection: Sendable {}
