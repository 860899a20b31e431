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
    /// Whether the connection failed (no connection, no answer within the deadline) rather than
    /// the server refusing the statement.
    public let isConnectionFailure: Bool
    // An array because a struct cannot hold an optional of itself; at most one element.
    private var rollbackFailures: [PostgreSQLError] = []

    /// Makes an error from explicit parts.
    public init(operation: String, sqlState: String? = nil, message: String, sql: String? = nil, isConnectionFailure: Bool = false) {
        self.operation = operation
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.isConnectionFailure = isConnectionFailure
    }

    /// Whether the database could not answer, rather than refused the statement: the connection
    /// failed, or the server gave up waiting (`statement_timeout`, `lock_timeout`, an idle
    /// transaction ended, a shutdown). The relay answers such a failure 503 `dependency_unavailable`.
    public var isUnavailable: Bool {
        isConnectionFailure || sqlState.map { $0.hasPrefix("08") || Self.unavailableStates.contains($0) } ?? false
    }

    /// `query_canceled` (statement_timeout), `lock_not_available` (lock_timeout),
    /// `idle_in_transaction_session_timeout`, `admin_shutdown`, `crash_shutdown`, `cannot_connect_now`.
    private static let unavailableStates: Set<String> = ["57014", "55P03", "25P03", "57P01", "57P02", "57P03"]

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
