/// What the gateway rules (``GatewayTables``) need of a connection beyond ``StoreConnection``:
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
