/// Where the gateway keeps challenges, hosts, sessions, registrations, the send log and the outbox.
///
/// Each write is one transaction, durable when the call returns. Implementations serialise
/// the read-modify-write steps of one host: SQLite by its single writer (`BEGIN IMMEDIATE`),
/// PostgreSQL by `pg_advisory_xact_lock` on a per-host key as the transaction's first statement.
///
/// - Important: protocol/gateway.md §2 (challenges, sessions), §3 (devices and their cap),
///   §5 (quotas counted and charged in one transaction under a per-host lock), §8 (schema, pruning).
public protocol GatewayStore: Sendable {
    /// Stores a freshly issued challenge. Writes no host row.
    func insertChallenge(_ challenge: GatewayChallengeRecord) async throws

    /// Answers a challenge in one transaction: unknown → ``ChallengeRedemption/unknownChallenge``;
    /// consumed, `nowMs > expires_at`, or `proofHash` (nil when the proof was not canonical)
    /// not equal in constant time to `secret_hash` → ``ChallengeRedemption/refused``, with
    /// nothing consumed. A host not stored yet must pass `newHost` (else ``ChallengeRedemption/hostLimit``
    /// or ``ChallengeRedemption/newHostRateLimited``, nothing consumed). Otherwise marks it consumed
    /// (only if still unconsumed), upserts the host (`last_seen_at` = now), deletes the host's
    /// other sessions and inserts this one.
    func redeemChallenge(id: String, proofHash: String?, nowMs: Int64, sessionTokenHash: String,
                         sessionExpiresAt: Int64, newHost: GatewayNewHostRule) async throws -> ChallengeRedemption

    /// The session stored under `tokenHash`, expired or not.
    func session(tokenHash: String) async throws -> GatewaySessionRecord?

    /// Registers or updates the phone (hostFingerprint, deviceId) under the per-host lock: an
    /// existing pair keeps its id, gets the new token and loses its dead mark; a new pair is
    /// refused at ``GatewayLimits/devicesPerHost`` and otherwise takes `newRegistrationId`.
    func registerDevice(_ registration: GatewayDeviceRegistration, newRegistrationId: String,
                        nowMs: Int64) async throws -> GatewayDeviceOutcome

    /// Deletes the registration if `hostFingerprint` owns it; `false` when missing or foreign.
    func deleteDevice(registrationId: String, hostFingerprint: String) async throws -> Bool

    /// The host's registrations, oldest first, at most ``GatewayLimits/deviceListLimit``.
    func devices(hostFingerprint: String) async throws -> [GatewayDeviceSummary]

    /// One registration, for delivery; `nil` when deleted.
    func device(registrationId: String) async throws -> GatewayDevice?

    /// For each of `registrationIds` (distinct, in order): ownership, dead mark, then the host
    /// hour quota and the registration day quota counted and charged under the per-host lock.
    /// Each admitted id gets a send-log row and, in the same transaction, an outbox row holding
    /// `notification`, due at `dueAt` and held by this store. A refused send is never logged.
    func admitSends(hostFingerprint: String, registrationIds: [String], notification: GatewayNotification, nowMs: Int64,
                    dueAt: Int64) async throws -> [GatewaySendAdmission]

    /// Takes over the outbox rows of every relay process that has ended (at start-up: those of
    /// the previous run) and returns them, oldest first.
    func adoptOutbox() async throws -> [GatewayOutboxRow]

    /// Marks the outbox rows this store still holds as the window `windowId` about to be sent,
    /// and returns their send ids: only those may be sent. Rows another relay took over are left
    /// alone; on PostgreSQL the session that claimed holds the holder lock, so the rows returned
    /// are not taken over while it lives.
    func claimOutbox(sendIds: [String], windowId: String) async throws -> [String]

    /// Deletes the outbox rows this store still holds: their window was delivered, refused for
    /// good, or expired.
    func deleteOutbox(sendIds: [String]) async throws

    /// Records a failed attempt at the window of the outbox rows this store still holds:
    /// `attempts` so far, the next due at `dueAt`.
    func postponeOutbox(sendIds: [String], attempts: Int, dueAt: Int64) async throws

    /// Marks a registration dead if it still has `token` (a re-registration since is left alone).
    func markDead(registrationId: String, token: String, nowMs: Int64) async throws

    /// Deletes challenges past their expiry by more than the grace period; returns how many.
    func pruneChallenges(nowMs: Int64) async throws -> Int
    /// Deletes sessions past their expiry; returns how many.
    func pruneSessions(nowMs: Int64) async throws -> Int
    /// Deletes send-log rows older than 25 h; returns how many.
    func pruneSendLog(nowMs: Int64) async throws -> Int
    /// Deletes the hosts that opened no session for more than `idleMs`, with their phones and
    /// sessions; returns how many hosts.
    func pruneHosts(nowMs: Int64, idleMs: Int64) async throws -> Int

    /// Finishes accepted writes, then releases the store; later calls throw.
    func close() async throws
}

/// What lets a redeemed challenge add a host that `push_hosts` does not hold yet: the table's
/// ceiling, then the redeeming client's budget of new hosts. A known host needs neither, so
/// hosts already stored keep opening sessions when the table is full.
///
/// - Important: docs/gateway.md "Growth" (`MAX_HOSTS`, `NEW_HOSTS_PER_IP_PER_HOUR`).
public struct GatewayNewHostRule: Sendable {
    /// Hosts the table may hold.
    public var maxHosts: Int
    /// Spends one new host of the client's budget; `false` when it is spent. Called only for a
    /// newcomer that fits under the ceiling, inside the store's transaction.
    public var spendClientBudget: @Sendable () -> Bool

    public init(maxHosts: Int, spendClientBudget: @escaping @Sendable () -> Bool) {
        self.maxHosts = maxHosts
        self.spendClientBudget = spendClientBudget
    }
}
