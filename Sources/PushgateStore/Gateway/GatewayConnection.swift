/// What the gateway rules (``GatewayRules``) need of a connection beyond ``StoreConnection``:
/// rows of several columns, and the per-host locks of protocol/gateway.md §5.2.
///
/// - Important: protocol/gateway.md §5.2 — count-then-write steps of one host run under a lock
///   held for the whole transaction.
protocol GatewayConnection: StoreConnection {
    /// Runs a query; returns every row as its first `columns` columns in text (integers in
    /// decimal, `nil` for NULL).
    func rows(_ sql: String, _ parameters: [SQLValue], columns: Int) throws -> [[String?]]

    /// Takes `lock` for `hostFingerprint`, held until the open write transaction ends, so the
    /// transactions that take it run one at a time across connections and processes.
    /// - Throws: ``GatewayLockError`` outside a write transaction, where it would be released at once.
    func lock(_ lock: GatewayHostLock, host hostFingerprint: String) throws

    /// Whether the relay process whose store wrote `holder` into outbox rows has ended, so that
    /// its rows may be taken over (``GatewayOutboxHolder``). Called inside a write transaction.
    func holderHasEnded(_ holder: Int64) throws -> Bool
}

/// The per-host locks, one scope per rule, named `<scope>:<hostFingerprint>`.
///
/// - Important: protocol/gateway.md §5.2 — the device cap and the send quota each have their own scope.
enum GatewayHostLock: String, Sendable {
    /// Registering a phone: find, count against the cap, insert (§3.1).
    case devices = "push-devices"
    /// Reserving sends: count both windows, insert (§5.1).
    case sendQuota = "push-send-quota"
    /// Minting a session: the host's older sessions go, the new one is its only one (§2.8).
    case sessions = "push-sessions"
    /// Adding a host: count the table against `MAX_HOSTS`, insert; one lock for all hosts (host "").
    case newHosts = "push-new-hosts"

    /// The lock's name for one host.
    func name(host hostFingerprint: String) -> String { rawValue + ":" + hostFingerprint }
}

/// A per-host lock was asked for outside a write transaction.
public struct GatewayLockError: Error, CustomStringConvertible, Sendable {
    /// The lock's scope (never the fingerprint, which is not logged in full).
    public let scope: String
    public var description: String { "the \(scope) lock needs an open write transaction" }
}

extension SQLiteConnection: GatewayConnection {
    func rows(_ sql: String, _ parameters: [SQLValue], columns: Int) throws -> [[String?]] {
        try withStatement(sql) { statement in
            try statement.bind(parameters)
            var rows: [[String?]] = []
            while try statement.step() { rows.append((0 ..< Int32(columns)).map { statement.string(at: $0) }) }
            return rows
        }
    }

    /// Takes nothing more: a write transaction is `BEGIN IMMEDIATE`, which already holds the
    /// database's single write lock, so no other transaction of any host runs beside it.
    func lock(_ lock: GatewayHostLock, host hostFingerprint: String) throws {
        guard isInTransaction else { throw GatewayLockError(scope: lock.rawValue) }
    }

    /// Always: a SQLite file serves one relay process at a time, so another holder is an earlier run.
    func holderHasEnded(_ holder: Int64) throws -> Bool { true }
}

extension PostgreSQLConnection: GatewayConnection {
    func rows(_ sql: String, _ parameters: [SQLValue], columns: Int) throws -> [[String?]] {
        let result = try retryingIfDropped { try query(sql, parameters) }
        return (0 ..< result.rowCount).map { row in (0 ..< columns).map { result.string(row: row, column: $0) } }
    }

    /// `pg_advisory_xact_lock(hashtext('<scope>:<hostFingerprint>'))`, released at commit or
    /// rollback; transactions of other hosts do not wait for it.
    func lock(_ lock: GatewayHostLock, host hostFingerprint: String) throws {
        guard isInTransaction else { throw GatewayLockError(scope: lock.rawValue) }
        try run("SELECT pg_advisory_xact_lock(hashtext(?1))", [.text(lock.name(host: hostFingerprint))])
    }

    /// Whether no session holds `holder`'s shared lock any more: the exclusive lock is granted
    /// only then (and held until commit, so the holder cannot come back meanwhile).
    func holderHasEnded(_ holder: Int64) throws -> Bool {
        try texts("SELECT pg_try_advisory_xact_lock(?1)::text", [.integer(holder)]) == ["true"]
    }
}
