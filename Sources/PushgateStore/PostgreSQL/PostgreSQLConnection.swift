internal import CLibPQ
import PushgateCore

/// One libpq connection (`PGconn`): parameterised statements only, each prepared once and
/// reused, text results, and write transactions that take an advisory lock first.
///
/// The connection is non-blocking: every wait for the server is a `poll` on its socket bounded
/// by a deadline (``withDeadline(_:_:)``, else ``Session/callTimeout`` per call). When a deadline
/// passes, the connection is dropped (a transaction under way is lost) and the next statement
/// outside a transaction opens a new one; so does a connection the server dropped (restart,
/// idle timeout), and reads and `BEGIN` that revealed the drop are sent once more. Calls block
/// the calling thread: the owner runs them on a dedicated queue (a ``ConnectionWorker``), one
/// thread at a time.
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
        /// How long one call may wait for the server when no ``withDeadline(_:_:)`` is set; also
        /// the session's `statement_timeout`, `lock_timeout` and
        /// `idle_in_transaction_session_timeout`, so the server gives up on a stalled client too.
        /// `nil`: calls wait as long as they take, with no server-side timeouts (migrations).
        public var callTimeout: Duration?

        public init(writeLockKey: Int64?, setup: [String] = [], applicationName: String = "pushgate", callTimeout: Duration? = nil) {
            self.writeLockKey = writeLockKey
            self.setup = setup
            self.applicationName = applicationName
            self.callTimeout = callTimeout
        }
    }

    /// How long opening a connection may take when no deadline is set.
    static let connectTimeout = Duration.seconds(10)

    /// The URL the connection was opened with.
    public let url: PostgreSQLURL
    private let session: Session
    /// `nil` once dropped after a deadline passed; the next statement outside a transaction reconnects.
    private var handle: OpaquePointer?
    private var statementNames: [String: String] = [:]
    private var inTransaction = false
    /// The deadline of the calls under way (``withDeadline(_:_:)``).
    private var deadline: ContinuousClock.Instant?
    #if DEBUG
    /// The executor whose queue alone may use the connection, once confined.
    private var owner: DispatchQueueExecutor?
    #endif

    /// Connects (at most 10 s, or the session's call timeout) and applies `session`.
    /// - Throws: ``PostgreSQLError`` with libpq's message, the password removed.
    public init(url: PostgreSQLURL, session: Session) throws {
        self.url = url
        self.session = session
        try connect(operation: "connect to \(url)")
    }

    deinit { if let handle { PQfinish(handle) } }

    /// From now on the connection is used only on `owner`'s queue: debug builds check each
    /// round trip runs there; release builds compile the check out.
    public func confine(to owner: DispatchQueueExecutor) {
        #if DEBUG
        owner.checkIsolated()
        self.owner = owner
        #endif
    }

    /// Runs `body` with every wait for the server bounded by `deadline` rather than each call's
    /// own timeout; a deadline already passed fails at once without touching the server.
    public func withDeadline<R>(_ deadline: ContinuousClock.Instant, _ body: () throws -> R) throws -> R {
        guard ContinuousClock.now < deadline else {
            throw PostgreSQLError(operation: "start a call", message: "the store deadline passed while the call waited for its connection",
                                  isConnectionFailure: true)
        }
        let outer = self.deadline
        self.deadline = deadline
        defer { self.deadline = outer }
        return try body()
    }

    /// Runs a statement with `parameters` bound to `?1`/`$1`, `?2`/`$2`, … (sent as text,
    /// never spliced into the SQL), preparing it on first use.
    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> PostgreSQLResult {
        _ = try liveHandle()  // reconnects first, so no statement name of a dropped connection is used
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
        return try roundTrip(operation: "execute", sql: sql) { handle in
            withCStringArray(values) { pointers in PQsendQueryPrepared(handle, name, Int32(values.count), pointers, nil, nil, 0) }
        }
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
            // A connection dropped for a passed deadline stays down until the next call.
            guard !inTransaction, let handle, PQstatus(handle) == CONNECTION_BAD else { throw error }
            return try work()
        }
    }

    private static let advisoryLock = "SELECT pg_advisory_xact_lock($1)"

    private func applySession() throws {
        if let timeout = session.callTimeout {
            let milliseconds = timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000
            for setting in ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"] {
                _ = try simpleQuery("SET \(setting) = \(milliseconds)")
            }
        }
        for statement in session.setup { _ = try simpleQuery(statement) }
    }

    /// Opens a new connection without blocking past the deadline, and applies the session.
    private func connect(operation: String) throws {
        // Keywords before `dbname` are defaults the URL may override: libpq keeps the last value.
        let keywords = ["application_name", "dbname"]
        let values = [session.applicationName, url.text]
        let started = withCStringArray(keywords) { keywords in
            withCStringArray(values) { values in PQconnectStartParams(keywords, values, 1) }
        }
        guard let started else { throw PostgreSQLError(operation: operation, message: "out of memory", isConnectionFailure: true) }
        handle = started
        statementNames.removeAll()
        let deadline = deadline ?? ContinuousClock.now + (session.callTimeout ?? Self.connectTimeout)
        var polling = PQstatus(started) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
        while polling != PGRES_POLLING_OK {
            switch polling {
            case PGRES_POLLING_READING: try wait(for: .readable, until: deadline, operation: operation, sql: nil)
            case PGRES_POLLING_WRITING: try wait(for: .writable, until: deadline, operation: operation, sql: nil)
            default: throw dropped(operation: operation, message: url.scrub(String(cString: PQerrorMessage(started))), sql: nil)
            }
            polling = PQconnectPoll(started)
        }
        // Sends never block either: a full socket buffer is waited out under the deadline.
        guard PQsetnonblocking(started, 1) == 0 else {
            throw dropped(operation: operation, message: url.scrub(String(cString: PQerrorMessage(started))), sql: nil)
        }
        // Server notices ("already exists, skipping") would go to stderr, past the Logger.
        PQsetNoticeProcessor(started, { _, _ in }, nil)
        try applySession()
    }

    /// The open connection, reconnecting first when it was dropped (only outside a transaction:
    /// a transaction's work went with its connection).
    private func liveHandle() throws -> OpaquePointer {
        if let handle, PQstatus(handle) == CONNECTION_OK { return handle }
        guard !inTransaction else {
            throw PostgreSQLError(operation: "execute", message: "the connection was lost inside a transaction", isConnectionFailure: true)
        }
        if let handle { PQfinish(handle) }
        handle = nil
        try connect(operation: "reconnect to \(url)")
        guard let handle else { throw PostgreSQLError(operation: "reconnect to \(url)", message: "no connection", isConnectionFailure: true) }
        return handle
    }

    /// Sends one command with `send`, then waits for all of its results under the deadline.
    /// Returns the first failed result, else the last one.
    private func roundTrip(operation: String, sql: String, _ send: (OpaquePointer) -> Int32) throws -> PostgreSQLResult {
        #if DEBUG
        owner?.checkIsolated()
        #endif
        let handle = try liveHandle()
        let deadline = deadline ?? session.callTimeout.map { ContinuousClock.now + $0 }
        guard send(handle) == 1 else { throw lost(operation: operation, sql: sql) }
        var flushed = PQflush(handle)
        while flushed == 1 {
            if try wait(for: [.readable, .writable], until: deadline, operation: operation, sql: sql).contains(.readable) {
                guard PQconsumeInput(handle) == 1 else { throw lost(operation: operation, sql: sql) }
            }
            flushed = PQflush(handle)
        }
        guard flushed == 0 else { throw lost(operation: operation, sql: sql) }
        var answer: PostgreSQLResult?
        var failure: PostgreSQLError?
        while true {
            while PQisBusy(handle) == 1 {
                try wait(for: .readable, until: deadline, operation: operation, sql: sql)
                guard PQconsumeInput(handle) == 1 else { throw lost(operation: operation, sql: sql) }
            }
            guard let result = PQgetResult(handle) else { break }
            let wrapped = PostgreSQLResult(handle: result)
            if failure == nil, let error = serverError(result, operation: operation, sql: sql) { failure = error }
            answer = wrapped
        }
        if let failure { throw failure }
        guard let answer else { throw lost(operation: operation, sql: sql) }
        return answer
    }

    /// Waits for the socket; when `deadline` passes first, drops the connection.
    @discardableResult
    private func wait(for events: SocketWait.Readiness, until deadline: ContinuousClock.Instant?, operation: String,
                      sql: String?) throws -> SocketWait.Readiness {
        guard let handle else { throw PostgreSQLError(operation: operation, message: "no connection", sql: sql, isConnectionFailure: true) }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw dropped(operation: operation, message: "no socket", sql: sql) }
        do {
            return try SocketWait.wait(for: events, on: socket, until: deadline)
        } catch is SocketWait.DeadlinePassed {
            throw dropped(operation: operation, message: "no answer within the store deadline; the connection was dropped", sql: sql)
        } catch {
            throw dropped(operation: operation, message: "\(error)", sql: sql)
        }
    }

    /// Closes the connection (the server rolls back whatever it held) and describes why.
    private func dropped(operation: String, message: String, sql: String?) -> PostgreSQLError {
        if let handle { PQfinish(handle) }
        handle = nil
        statementNames.removeAll()
        return PostgreSQLError(operation: operation, message: message, sql: sql, isConnectionFailure: true)
    }

    /// The connection failed while sending or reading: libpq's message.
    private func lost(operation: String, sql: String) -> PostgreSQLError {
        let message = handle.map { url.scrub(String(cString: PQerrorMessage($0))) } ?? "no connection"
        return PostgreSQLError(operation: operation, message: message, sql: sql, isConnectionFailure: true)
    }

    /// The simple-query protocol, for fixed SQL without parameters (transaction control,
    /// session settings, migration scripts of several statements).
    private func simpleQuery(_ sql: String) throws -> PostgreSQLResult {
        try roundTrip(operation: "execute", sql: sql) { PQsendQuery($0, sql) }
    }

    private func statementName(for sql: String) throws -> String {
        if let name = statementNames[sql] { return name }
        let name = "pushgate_\(statementNames.count + 1)"
        _ = try roundTrip(operation: "prepare", sql: sql) { PQsendPrepare($0, name, Self.dollarParameters(sql), 0, nil) }
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

    /// The error a failed result carries, or `nil` for a success.
    private func serverError(_ result: OpaquePointer, operation: String, sql: String) -> PostgreSQLError? {
        let status = PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return nil }
        let sqlState = PQresultErrorField(result, pushgate_pq_diag_sqlstate()).map { String(cString: $0) }
        // The primary message only: the DETAIL line may quote row values, such as device tokens,
        // which must never reach a log (protocol/signed-relay.md §9).
        let message = PQresultErrorField(result, pushgate_pq_diag_message_primary()).map { String(cString: $0) }
            ?? String(cString: PQresultErrorMessage(result))
        // A result libpq made up because the connection broke has no SQLSTATE.
        let broken = sqlState == nil && handle.map { PQstatus($0) == CONNECTION_BAD } ?? true
        return PostgreSQLError(operation: operation, sqlState: sqlState, message: url.scrub(message), sql: sql, isConnectionFailure: broken)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

// One thread at a time: share it through an actor, never across tasks directly.
@available(*, unavailable)
extension PostgreSQLConnection: Sendable {}

/// Lends `strings` to C as an array of NUL-terminated strings followed by a NULL entry; `nil`
/// entries are NULL. The strings share one buffer that lives for the call.
func withCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R) rethrows -> R {
    var storage: [CChar] = []
    let offsets = strings.map { string -> Int? in
        guard let string else { return nil }
        defer { storage.append(contentsOf: string.utf8CString) }
        return storage.count
    }
    return try storage.withUnsafeBufferPointer { buffer in
        // An empty buffer has no base address; then every entry is NULL anyway.
        let pointers: [UnsafePointer<CChar>?] = offsets.map { offset -> UnsafePointer<CChar>? in
            guard let offset, let base = buffer.baseAddress else { return nil }
            return base + offset
        } + [nil]
        return try pointers.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
