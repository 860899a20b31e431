/// The ``GatewayStore`` on the relay's SQLite file (or `:memory:`).
///
/// Writes go through one connection on its own serial queue, group-committed like the binding
/// store's: every write runs inside a `BEGIN IMMEDIATE` transaction, so SQLite's single writer
/// lock is the per-host lock of protocol/gateway.md §5.2 — count-then-insert steps never interleave.
/// Concurrent writes may share one transaction (and one fsync); each caller returns only once
/// its transaction is durable. Reads use a second, read-only connection.
public final class SQLiteGatewayStore: GatewayStore {
    private let writer: ConnectionWorker<SQLiteConnection>
    private let reader: ConnectionWorker<SQLiteConnection>
    private let commits: GroupCommitQueue<SQLiteConnection>
    /// This store's key in the outbox rows it queues (``GatewayOutboxHolder``).
    private let holder = GatewayOutboxHolder.random()

    private init(writer: ConnectionWorker<SQLiteConnection>, reader: ConnectionWorker<SQLiteConnection>) {
        self.writer = writer
        self.reader = reader
        commits = GroupCommitQueue(worker: writer)
    }

    /// Opens the store at `path` (directory created, mode 0700), migrating the relay schema.
    /// - Throws: ``SQLiteError``, ``MigrationError``, ``DatabaseDirectory/CreationError``.
    public static func open(path: String) async throws -> SQLiteGatewayStore {
        let writer = ConnectionWorker<SQLiteConnection>(label: "pushgate.gateway-store.writer")
        try await writer.open {
            try DatabaseDirectory.prepare(for: path)
            let connection = try SQLiteConnection(path: path)
            try Migrator.migrate(connection, with: RelaySchema.migrations)
            return connection
        }
        guard path != SQLiteConnection.memoryPath else { return SQLiteGatewayStore(writer: writer, reader: writer) }
        let reader = ConnectionWorker<SQLiteConnection>(label: "pushgate.gateway-store.reader")
        try await reader.open { try SQLiteConnection(path: path, access: .readOnly) }
        return SQLiteGatewayStore(writer: writer, reader: reader)
    }

    public func insertChallenge(_ challenge: GatewayChallengeRecord) async throws {
        try await commits.submit { try GatewayRules.insertChallenge(challenge, on: $0) }
    }

    public func redeemChallenge(id: String, proofHash: String?, nowMs: Int64, sessionTokenHash: String,
                                sessionExpiresAt: Int64, newHost: GatewayNewHostRule) async throws -> ChallengeRedemption {
        try await commits.submit { connection in
            try GatewayRules.redeemChallenge(id: id, proofHash: proofHash, nowMs: nowMs, sessionTokenHash: sessionTokenHash,
                                              sessionExpiresAt: sessionExpiresAt, newHost: newHost, on: connection)
        }
    }

    public func session(tokenHash: String) async throws -> GatewaySessionRecord? {
        try await reader.run { try GatewayRules.session(tokenHash: tokenHash, on: $0) }
    }

    public func registerDevice(_ registration: GatewayDeviceRegistration, newRegistrationId: String,
                               nowMs: Int64) async throws -> GatewayDeviceOutcome {
        try await commits.submit { connection in
            try GatewayRules.registerDevice(registration, newRegistrationId: newRegistrationId, nowMs: nowMs, on: connection)
        }
    }

    public func deleteDevice(registrationId: String, hostFingerprint: String) async throws -> Bool {
        try await commits.submit { connection in
            try GatewayRules.deleteDevice(registrationId: registrationId, hostFingerprint: hostFingerprint, on: connection)
        }
    }

    public func devices(hostFingerprint: String) async throws -> [GatewayDeviceSummary] {
        try await reader.run { try GatewayRules.devices(hostFingerprint: hostFingerprint, on: $0) }
    }

    public func device(registrationId: String) async throws -> GatewayDevice? {
        try await reader.run { try GatewayRules.device(registrationId: registrationId, on: $0) }
    }

    public func admitSends(hostFingerprint: String, registrationIds: [String], notification: GatewayNotification, nowMs: Int64,
                           dueAt: Int64) async throws -> [GatewaySendAdmission] {
        let holder = holder
        return try await commits.submit { connection in
            try GatewayRules.admitSends(hostFingerprint: hostFingerprint, registrationIds: registrationIds, notification: notification,
                                         nowMs: nowMs, holder: holder, dueAt: dueAt, on: connection)
        }
    }

    public func adoptOutbox() async throws -> [GatewayOutboxRow] {
        let holder = holder
        guard try await reader.run({ try GatewayRules.outboxHasOtherHolders(holder, on: $0) }) else { return [] }
        return try await commits.submit { try GatewayRules.adoptOutbox(holder: holder, on: $0) }
    }

    public func claimOutbox(sendIds: [String], windowId: String) async throws -> [String] {
        let holder = holder
        return try await commits.submit { try GatewayRules.claimOutbox(sendIds: sendIds, windowId: windowId, holder: holder, on: $0) }
    }

    public func deleteOutbox(sendIds: [String]) async throws {
        let holder = holder
        try await commits.submit { try GatewayRules.deleteOutbox(sendIds: sendIds, holder: holder, on: $0) }
    }

    public func postponeOutbox(sendIds: [String], attempts: Int, dueAt: Int64) async throws {
        let holder = holder
        try await commits.submit { connection in
            try GatewayRules.postponeOutbox(sendIds: sendIds, attempts: attempts, dueAt: dueAt, holder: holder, on: connection)
        }
    }

    public func markDead(registrationId: String, token: String, nowMs: Int64) async throws {
        try await commits.submit { connection in
            try GatewayRules.markDead(registrationId: registrationId, token: token, nowMs: nowMs, on: connection)
        }
    }

    public func pruneChallenges(nowMs: Int64) async throws -> Int {
        try await commits.submit { try GatewayRules.pruneChallenges(nowMs: nowMs, on: $0) }
    }

    public func pruneSessions(nowMs: Int64) async throws -> Int {
        try await commits.submit { try GatewayRules.pruneSessions(nowMs: nowMs, on: $0) }
    }

    public func pruneSendLog(nowMs: Int64) async throws -> Int {
        try await commits.submit { try GatewayRules.pruneSendLog(nowMs: nowMs, on: $0) }
    }

    public func pruneHosts(nowMs: Int64, idleMs: Int64) async throws -> Int {
        try await commits.submit { try GatewayRules.pruneHosts(nowMs: nowMs, idleMs: idleMs, on: $0) }
    }

    /// Answers every write already accepted, then closes both connections.
    public func close() async {
        await commits.close()
        await writer.close()
        await reader.close()
    }
}
