internal import CSQLite

/// A failed SQLite call: result codes, SQLite's message, and what was being done.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    public let code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_PRIMARYKEY`, …); equals `code` when none.
    public let extendedCode: Int32
    /// SQLite's own message for the failure.
    public let message: String
    /// The call that failed (`open`, `prepare`, `step`, `bind`, `commit`, …).
    public let operation: String
    /// The statement being run, when there was one.
    public let sql: String?
    // An array because a struct cannot hold an optional of itself; at most one element.
    private var rollbackFailures: [SQLiteError] = []

    /// Makes an error from explicit parts.
    public init(code: Int32, extendedCode: Int32? = nil, message: String, operation: String, sql: String? = nil) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.operation = operation
        self.sql = sql
    }

    /// Reads the error state of `db` right after a call on it failed with `result`.
    init(result: Int32, db: OpaquePointer?, operation: String, sql: String? = nil) {
        // The handle's error state describes this failure only if it carries the same code
        // (a size check made in Swift fails without touching the handle).
        if let db, sqlite3_errcode(db) & 0xFF == result & 0xFF {
            self.init(code: result & 0xFF, extendedCode: sqlite3_extended_errcode(db),
                      message: String(cString: sqlite3_errmsg(db)), operation: operation, sql: sql)
        } else {
            self.init(code: result & 0xFF, extendedCode: result,
                      message: String(cString: sqlite3_errstr(result)), operation: operation, sql: sql)
        }
    }

    /// The rollback that failed after this error, if any; this error stays the one reported.
    public var rollbackFailure: SQLiteError? { rollbackFailures.first }

    /// This error with `failure` recorded as the failed rollback that followed it.
    func attachingRollbackFailure(_ failure: SQLiteError) -> SQLiteError {
        var copy = self
        copy.rollbackFailures = [failure]
        return copy
    }

    public var description: String {
        var text = "SQLite \(operation) failed (\(extendedCode)): \(message)"
        if let sql { text += " [\(sql)]" }
        if let rollbackFailure { text += "; then rollback failed: \(rollbackFailure.message)" }
        return text
    }
}
