internal import CSQLite

/// One prepared statement. Connections cache and reuse them; borrow one with
/// ``SQLiteConnection/withStatement(_:_:)``, which resets it and clears its bindings afterwards.
///
/// Parameter indexes start at 1 and column indexes at 0, as in SQLite.
public final class SQLiteStatement {
    /// The SQL text the statement was prepared from.
    public let sql: String
    private let handle: OpaquePointer

    // SQLite copies bound values before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(db: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let result = sql.withCString { sqlite3_prepare_v3(db, $0, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) }
        guard result == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError(result: result == SQLITE_OK ? SQLITE_MISUSE : result, db: db, operation: "prepare", sql: sql)
        }
        self.sql = sql
        self.handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    /// The number of `?` parameters.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Binds an integer to parameter `index`.
    public func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), "bind")
    }

    /// Binds a floating-point number to parameter `index`.
    public func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), "bind")
    }

    /// Binds UTF-8 text to parameter `index`.
    public func bind(_ value: String, at index: Int32) throws {
        var text = value
        let result = text.withUTF8 { bytes -> Int32 in
            guard bytes.count <= Int32.max else { return SQLITE_TOOBIG }
            // A nil pointer would bind NULL, so empty text gets a real (empty) C string.
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, Self.transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
            }
        }
        try check(result, "bind")
    }

    /// Binds a blob to parameter `index`.
    public func bind(_ value: [UInt8], at index: Int32) throws {
        let result = value.withUnsafeBytes { bytes -> Int32 in
            guard bytes.count <= Int32.max else { return SQLITE_TOOBIG }
            // A nil pointer would bind NULL, so an empty blob is bound as a zero-length blob.
            guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), Self.transient)
        }
        try check(result, "bind")
    }

    /// Binds SQL NULL to parameter `index`.
    public func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index), "bind")
    }

    /// Runs the statement one step: `true` when a row is ready to read, `false` when done.
    @discardableResult
    public func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let result: throw SQLiteError(result: result, db: sqlite3_db_handle(handle), operation: "step", sql: sql)
        }
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` of the current row as an integer (NULL reads as 0).
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` of the current row as a floating-point number (NULL reads as 0).
    public func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` of the current row as text, or nil when NULL.
    public func string(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as bytes, or nil when NULL.
    public func blob(at index: Int32) -> [UInt8]? {
        if isNull(at: index) { return nil }
        // Per SQLite's rules, ask for the pointer first, then the size.
        guard let bytes = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Makes the statement ready to run again and unbinds every parameter.
    func recycle() {
        // reset repeats the last step's error, which was already thrown from step.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private func check(_ result: Int32, _ operation: String) throws {
        guard result == SQLITE_OK else {
            throw SQLiteError(result: result, db: sqlite3_db_handle(handle), operation: operation, sql: sql)
        }
    }
}

// Belongs to its connection's thread of use.
@available(*, unavailable)
extension SQLiteStatement: Sendable {}
