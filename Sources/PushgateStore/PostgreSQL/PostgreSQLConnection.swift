import CLibPQ

/// One libpq connection (`PGconn`): parameterised statements only, each prepared once and
/// reused, text results, and write transactions that take an advisory lock first.
///
/// When the server dropped the connection (restart, idle timeout), the next statement outside
/// a transaction reconnects; reads and `BEGIN` are sent once more on the new connection.
/// Every call blocks until the server answers: the owner runs it on a dedicated queue (a
/// ``ConnectionWorker``), one thread at a time.
public final class PostgreSQLConnection {
    /// Per-session settings, applied on connect and on every reconnect.
    public struct Session: Sendable {
        /// The `pg_advisory_xact_lock` key every ``writeTransaction(_:)`` takes first, so that
        /// writers of the same data take turns across connections and processes; `nil` when the
        /// transactions take finer locks of their own (the gateway's per-host locks).
        public var writeLockKey: Int64?
        /// Statements without parameters run after connecting (`SET …`).
        public var setup: [String]
        /// Shown in `pg_stat_activity`; the URL's `application_name` wins.
        public var applicationName: String

        public init(writeLockKey: Int64?, setup: [String] = [], applicationName: String = "pushgate") {
            self.writeLockKey = writeLockKey
            self.setup = setup
            self.applicationName = applicationName
        }
    }

    /// The URL the connection was opened with.
    public let url: PostgreSQLURL
    private let session: Session
    private let handle: OpaquePointer
    private var statementNames: [String: String] = [:]
    private var inTransaction = false

    /// Connects (blocking, at most 10 s unless the URL sets `connect_timeout`) and applies `session`.
    /// - Throws: ``PostgreSQLError`` with libpq's message, the password removed.
    public init(url: PostgreSQLURL, session: Session) throws {
        // Keywords before `dbname` are defaults the URL may override: libpq keeps the last value.
        let keywords = ["connect_timeout", "application_name", "dbname"]
        let values = ["10", session.applicationName, url.text]
        let connection = withCStringArray(keywords) { keywords in
            withCStringArray(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection else { throw PostgreSQLError(operation: "connect to \(url)", message: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = url.scrub(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw PostgreSQLError(operation: "connect to \(url)", message: message)
        }
        // Server notices ("already exists, skipping") would go to stderr, past the Logger.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        self.url = url
        self.session = session
        self.handle = connection
        try applySession()
    }

    deinit { PQfinish(handle) }

    /// Runs a statement with `parameters` bound to `?1`/`$1`, `?2`/`$2`, … (sent as text,
    /// never spliced into the SQL), preparing it on first use.
    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> PostgreSQLResult {
        try reconnectIfDropped()
        guard parameters.count <= Int(UInt16.max) else {
            throw PostgreSQLError(operation: "execute", message: "\(parameters.count) parameters, at most 65535 allowed", sql: sql)
        }
        let values = try parameters.map { value -> String? in
            switch value {
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw PostgreSQLError(operation: "bind", message: "text parameter contains a NUL byte", sql: sql)
                }
                return text
            case .integer(let number): return String(number)
            case .null: return nil
            }
        }
        let name = try statementName(for: sql)
        let result = withCStringArray(values) { pointers in
            PQexecPrepared(handle, name, Int32(values.count), pointers, nil, nil, 0)
        }
        return try check(result, operation: "execute", sql: sql)
    }

    public func execute(_ script: String) throws { _ = try simpleQuery(script) }

    /// Whether ``writeTransaction(_:)`` is running, so a transaction-scoped lock would be held.
    public var isInTransaction: Bool { inTransaction }

    /// Runs `body` between `BEGIN` (after taking the session's advisory lock, if any) and `COMMIT`;
    /// rolls back and rethrows the first error when `body` or the commit throws.
    public func writeTransaction<R>(_ body: () throws -> R) throws -> R {
        try retryingIfDropped { _ = try simpleQuery("BEGIN") }
        inTransaction = true
        defer { inTransaction = false }
        do {
            if let key = session.writeLockKey { _ = try query(Self.advisoryLock, [.integer(key)]) }
            let value = try body()
            // After a failed statement the server answers COMMIT with ROLLBACK, not an error.
            guard try simpleQuery("COMMIT").commandTag == "COMMIT" else {
                throw PostgreSQLError(operation: "commit", message: "the server rolled the transaction back")
            }
            return value
        } catch {
            do {
                _ = try simpleQuery("ROLLBACK")
            } catch let rollbackError as PostgreSQLError {
                if let original = error as? PostgreSQLError { throw original.attachingRollbackFailure(rollbackError) }
            }
            throw error
        }
    }

    /// Runs `work`, and once more when it failed because the server had dropped the connection
    /// outside a transaction, which only the failed call reveals. For reads and `BEGIN` only:
    /// sending them twice changes nothing.
    func retryingIfDropped<R>(_ work: () throws -> R) throws -> R {
        do {
            return try work()
        } catch {
            guard !inTransaction, PQstatus(handle) == CONNECTION_BAD else { throw error }
            return try work()
        }
    }

    private static let advisoryLock = "SELECT pg_advisory_xact_lock($1)"

    private func applySession() throws {
        for statement in session.setup { _ = try simpleQuery(statement) }
    }

    private func reconnectIfDropped() throws {
        guard !inTransaction, PQstatus(handle) == CONNECTION_BAD else { return }
        PQreset(handle)
        statementNames.removeAll()
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgreSQLError(operation: "reconnect to \(url)", message: url.scrub(String(cString: PQerrorMessage(handle))))
        }
        try applySession()
    }

    /// The simple-query protocol, for fixed SQL without parameters (transaction control,
    /// session settings, migration scripts of several statements).
    private func simpleQuery(_ sql: String) throws -> PostgreSQLResult {
        try reconnectIfDropped()
        return try check(PQexec(handle, sql), operation: "execute", sql: sql)
    }

    private func statementName(for sql: String) throws -> String {
        if let name = statementNames[sql] { return name }
        let name = "pushgate_\(statementNames.count + 1)"
        _ = try check(PQprepare(handle, name, Self.dollarParameters(sql), 0, nil), operation: "prepare", sql: sql)
        statementNames[sql] = name
        return name
    }

    /// `?N` → `$N`: the shared store SQL uses SQLite's numbered form, which maps one to one.
    /// Store SQL never has a `?` inside a literal.
    static func dollarParameters(_ sql: String) -> String {
        let characters = Array(sql)
        return String(characters.indices.map { index in
            let next = characters.index(after: index)
            return characters[index] == "?" && next < characters.endIndex && characters[next].isASCIIDigit ? "$" : characters[index]
        })
    }

    private func check(_ result: OpaquePointer?, operation: String, sql: String) throws -> PostgreSQLResult {
        guard let result else {
            throw PostgreSQLError(operation: operation, message: url.scrub(String(cString: PQerrorMessage(handle))), sql: sql)
        }
        let wrapped = PostgreSQLResult(handle: result)
        let status = PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return wrapped }
        let sqlState = PQresultErrorField(result, pushgate_pq_diag_sqlstate()).map { String(cString: $0) }
        // The primary message only: the DETAIL line may quote row values, such as device tokens,
        // which must never reach a log (relay-protocol.md §9).
        let message = PQresultErrorField(result, pushgate_pq_diag_message_primary()).map { String(cString: $0) }
            ?? String(cString: PQresultErrorMessage(result))
        throw PostgreSQLError(operation: operation, sqlState: sqlState, message: url.scrub(message), sql: sql)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

// One thread at a time: share it through an actor, never across tasks directly.
@available(*, unavailable)
extension PostgreSQLConnection: Sendable {}
