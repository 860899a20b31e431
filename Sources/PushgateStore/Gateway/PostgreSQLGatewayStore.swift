import Synchronization

/// The ``GatewayStore`` on a PostgreSQL database, which several relay instances may share.
///
/// The rules are the SQLite store's (``GatewayRules``, the same statements). Each write is a
/// transaction of its own on one of a few connections, taken in turn. It takes no store-wide
/// lock; a rule that counts before it writes first takes its per-host lock
/// (``GatewayHostLock``: `pg_advisory_xact_lock(hashtext('<scope>:<hostFingerprint>'))`), so
/// the device cap and the quotas stay exact across connections and relay instances while
/// different hosts never wait for each other. Each call returns after its `COMMIT`, with
/// `synchronous_commit` on. Every connection lives on its own serial queue.
///
/// - Important: protocol/gateway.md §5.2 (one transaction, one per-host advisory lock) and §8.
public final class PostgreSQLGatewayStore: GatewayStore {
    private let connections: [ConnectionWorker<PostgreSQLConnection>]
    private let nextConnection = Atomic<Int>(0)

    /// Shown in `pg_stat_activity` for the store's connections.
    public static let applicationName = "pushgate-gateway"

    /// This store's key in the outbox rows it queues, alive while any of its sessions is
    /// (``GatewayOutboxHolder``).
    private let holder: Int64

    /// Per-session settings: durable commits whatever the server's default; a host lock (or
    /// row lock) not granted within 5 s fails the call instead of hanging it; a session idle
    /// for 5 s inside a transaction (a stalled relay) is ended, which releases its host locks;
    /// the holder's shared lock, which tells other relays this process still holds its outbox rows.
    static func setup(holder: Int64) -> [String] {
        [PostgreSQLBindingStore.durableCommits, "SET lock_timeout = '5s'", "SET idle_in_transaction_session_timeout = '5s'",
         GatewayOutboxHolder.sessionLock(holder)]
    }

    private init(connections: [ConnectionWorker<PostgreSQLConnection>], holder: Int64) {
        self.connections = connections
        self.holder = holder
    }

    /// Connects to `url`, migrating the relay schema, with `connections` connections.
    /// `callTimeout`: how long each call may take from being asked (as for the binding store),
    /// so a stalled server fails the gateway's calls instead of holding them.
    /// - Throws: ``PostgreSQLError`` (the password never appears in it), ``MigrationError``
    ///   (a database from a newer build).
    public static func open(url: PostgreSQLURL, connections count: Int = 4,
                            callTimeout: Duration? = nil) async throws -> PostgreSQLGatewayStore {
        precondition(count > 0, "at least one connection")
        var connections: [ConnectionWorker<PostgreSQLConnection>] = []
        let holder = GatewayOutboxHolder.random()
        for index in 0 ..< count {
            let worker = ConnectionWorker<PostgreSQLConnection>(label: "pushgate.gateway-store.pg\(index)", callTimeout: callTimeout)
            do {
                try await worker.open {
                    if index == 0 { try PostgreSQLSchema.migrate(url: url, applicationName: applicationName) }
                    return try PostgreSQLConnection(url: url, session: .init(writeLockKey: nil, setup: setup(holder: holder),
                                                                             applicationName: applicationName,
                                                                             callTimeout: callTimeout))
                }
            } catch {
                for opened in connections { await opened.close() }
                throw error
            }
            connections.append(worker)
        }
        return PostgreSQLGatewayStore(connections: connections, holder: holder)
    }

    public func insertChallenge(_ challenge: GatewayChallengeRecord) async throws {
        try await write { try GatewayRules.insertChallenge(challenge, on: $0) }
    }

    public func redeemChallenge(id: String, proofHash: String?, nowMs: Int64, sessionTokenHash: String,
                                sessionExpiresAt: Int64, newHost: GatewayNewHostRule) async throws -> ChallengeRedemption {
        try await write { connection in
            try GatewayRules.redeemChallenge(id: id, proofHash: proofHash, nowMs: nowMs, sessionTokenHash: sessionTokenHash,
                                              sessionExpiresAt: sessionExpiresAt, newHost: newHost, on: connection)
        }
    }

    public func session(tokenHash: String) async throws -> GatewaySessionRecord? {
        try await connection().run { try GatewayRules.session(tokenHash: tokenHash, on: $0) }
    }

    public func registerDevice(_ registration: GatewayDeviceRegistration, newRegistrationId: String,
                               nowMs: Int64) async throws -> GatewayDeviceOutcome {
        try await write { connection in
            try GatewayRules.registerDevice(registration, newRegistrationId: newRegistrationId, nowMs: nowMs, on: connection)
        }
    }

    public func deleteDevice(registrationId: String, hostFingerprint: String) async throws -> Bool {
        try await write { connection in
            try GatewayRules.deleteDevice(registrationId: registrationId, hostFingerprint: hostFingerprint, on: connection)
        }
    }

    public func devices(hostFingerprint: String) async throws -> [GatewayDeviceSummary] {
        try await connection().run { try GatewayRules.devices(hostFingerprint: hostFingerprint, on: $0) }
    }

    public func device(registrationId: String) async throws -> GatewayDevice? {
        try await connection().run { try GatewayRules.device(registrationId: registrationId, on: $0) }
    }

    public func admitSends(hostFingerprint: String, registrationIds: [String], notification: GatewayNotification, nowMs: Int64,
                           dueAt: Int64) async throws -> [GatewaySendAdmission] {
        let holder = holder
        return try await write { connection in
            try GatewayRules.admitSends(hostFingerprint: hostFingerprint, registrationIds: registrationIds, notification: notification,
                                         nowMs: nowMs, holder: holder, dueAt: dueAt, on: connection)
        }
    }

    public func adoptOutbox() async throws -> [GatewayOutboxRow] {
        let holder = holder
        guard try await connection().run({ try GatewayRules.outboxHasOtherHolders(holder, on: $0) }) else { return [] }
        return try await write { try GatewayRules.adoptOutbox(holder: holder, on: $0) }
    }

    public func claimOutbox(sendIds: [String], windowId: String) async throws -> [String] {
        let holder = holder
        return try await write { try GatewayRules.claimOutbox(sendIds: sendIds, windowId: windowId, holder: holder, on: $0) }
    }

    public func deleteOutbox(sendIds: [String]) async throws {
        let holder = holder
        try await write { try GatewayRules.deleteOutbox(sendIds: sendIds, holder: holder, on: $0) }
    }

    public func postponeOutbox(sendIds: [String], attempts: Int, dueAt: Int64) async throws {
        let holder = holder
        try await write { connection in
            try GatewayRules.postponeOutbox(sendIds: sendIds, attempts: attempts, dueAt: dueAt, holder: holder, on: connection)
        }
    }

    public func markDead(registrationId: String, token: String, nowMs: Int64) async throws {
        try await write { try GatewayRules.markDead(registrationId: registrationId, token: token, nowMs: nowMs, on: $0) }
    }

    public func pruneChallenges(nowMs: Int64) async throws -> Int {
        try await write { try GatewayRules.pruneChallenges(nowMs: nowMs, on: $0) }
    }

    public func pruneSessions(nowMs: Int64) async throws -> Int {
        try await write { try GatewayRules.pruneSessions(nowMs: nowMs, on: $0) }
    }

    public func pruneSendLog(nowMs: Int64) async throws -> Int {
        try await write { try GatewayRules.pruneSendLog(nowMs: nowMs, on: $0) }
    }

    public func pruneHosts(nowMs: Int64, idleMs: Int64) async throws -> Int {
        try await write { try GatewayRules.pruneHosts(nowMs: nowMs, idleMs: idleMs, on: $0) }
    }

    /// Closes every connection once the calls already running on it are answered; later calls
    /// throw ``StoreClosedError``.
    public func close() async {
        for connection in connections { await connection.close() }
    }

    /// Runs `body` in a write transaction of its own on the next connection.
    private func write<R: Sendable>(_ body: @Sendable (PostgreSQLConnection) throws -> R) async throws -> R {
        try await connection().run { connection in try connection.writeTransaction { try body(connection) } }
    }

    /// The connections in turn.
    private func connection() -> ConnectionWorker<PostgreSQLConnection> {
        let turn = UInt(bitPattern: nextConnection.add(1, ordering: .relaxed).oldValue)
        return connections[Int(turn % UInt(connections.count))]
    }
}
