/// A failed PostgreSQL operation: what was being done, libpq's or the server's message (with
/// the connection password removed), and the SQLSTATE code when the server sent one.
public struct PostgreSQLError: Error, CustomStringConvertible, Sendable {
    /// The call that failed (`connect`, `prepare`, `execute`, `commit`, `parse URL`, …).
    public let operation: String
    /// The five-character SQLSTATE (`23505` unique violation, `40P01` deadlock, …), or `nil`
    /// for client-side failures such as a lost connection.
    public let sqlState: String?
    /// The server's or libpq's message, on one line.
    public let message: String
    /// The statement being run, when there was one.
    public let sql: String?
    // An array because a struct cannot hold an optional of itself; at most one element.
    private var rollbackFailures: [PostgreSQLError] = []

    /// Makes an error from explicit parts.
    public init(operation: String, sqlState: String? = nil, message: String, sql: String? = nil) {
        self.operation = operation
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// The rollback that failed after this error, if any; this error stays the one reported.
    public var rollbackFailure: PostgreSQLError? { rollbackFailures.first }

    /// This error with `failure` recorded as the failed rollback that followed it.
    func attachingRollbackFailure(_ failure: PostgreSQLError) -> PostgreSQLError {
        var copy = self
        copy.rollbackFailures = [failure]
        return copy
    }

    public var description: String {
        var text = "PostgreSQL \(operation) failed"
        if let sqlState { text += " (\(sqlState))" }
        text += ": \(message)"
        if let sql { text += " [\(sql)]" }
        if let rollbackFailure { text += "; then rollback failed: \(rollbackFailure.message)" }
        return text
    }
}
