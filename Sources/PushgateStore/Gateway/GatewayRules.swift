import PushgateCore

/// The gateway operations as SQL on one connection, shared by the SQLite and PostgreSQL stores;
/// the caller provides the write transaction, the rules take their per-host locks in it.
enum GatewayRules {
    static func insertChallenge(_ challenge: GatewayChallengeRecord, on connection: some GatewayConnection) throws {
        try connection.run(GatewaySQL.insertChallenge, [
            .text(challenge.challengeId), .text(challenge.hostFingerprint), .text(challenge.hostPublicKeyB64),
            .text(challenge.secretHash), challenge.transcriptB64.map(SQLValue.text) ?? .null, .integer(challenge.expiresAt),
        ])
    }

    static func redeemChallenge(id: String, proofHash: String?, nowMs: Int64, sessionTokenHash: String, sessionExpiresAt: Int64,
                                newHost: GatewayNewHostRule, on connection: some GatewayConnection) throws -> ChallengeRedemption {
        guard let row = try connection.rows(GatewaySQL.readChallenge, [.text(id)], columns: 5).first else {
            return .unknownChallenge
        }
        let (fingerprint, publicKey, secretHash) = (row[0] ?? "", row[1] ?? "", row[2] ?? "")
        guard row[4] == nil, nowMs <= integer(row[3]), let proofHash,
              ConstantTime.equals(Array(proofHash.utf8), Array(secretHash.utf8)) else { return .refused }
        // The host is known only from the row: its lock keeps "delete the older sessions, insert
        // this one" to one transaction at a time, so the host ends with one session.
        try connection.lock(.sessions, host: fingerprint)
        if try connection.integer(GatewaySQL.hostExists, [.text(fingerprint)]) == nil {
            // One lock for every newcomer: two relays on one database cannot both take the last place.
            try connection.lock(.newHosts, host: "")
            guard try connection.integer(GatewaySQL.countHosts, []) ?? 0 < Int64(newHost.maxHosts) else { return .hostLimit }
            guard newHost.spendClientBudget() else { return .newHostRateLimited }
        }
        // Changes no row when a concurrent proof consumed it first.
        guard try connection.run(GatewaySQL.consumeChallenge, [.text(id), .integer(nowMs)]) == 1 else { return .refused }
        try connection.run(GatewaySQL.upsertHost, [.text(fingerprint), .text(publicKey), .integer(nowMs)])
        try connection.run(GatewaySQL.deleteHostSessions, [.text(fingerprint)])
        try connection.run(GatewaySQL.insertSession, [.text(sessionTokenHash), .text(fingerprint), .integer(sessionExpiresAt),
                                                      .integer(nowMs)])
        return .redeemed(hostFingerprint: fingerprint)
    }

    static func session(tokenHash: String, on connection: some GatewayConnection) throws -> GatewaySessionRecord? {
        try connection.rows(GatewaySQL.readSession, [.text(tokenHash)], columns: 2).first.map { row in
            GatewaySessionRecord(hostFingerprint: row[0] ?? "", expiresAt: integer(row[1]))
        }
    }

    static func registerDevice(_ registration: GatewayDeviceRegistration, newRegistrationId: String, nowMs: Int64,
                               on connection: some GatewayConnection) throws -> GatewayDeviceOutcome {
        let host = registration.hostFingerprint
        try connection.lock(.devices, host: host)
        // Platform, token, environment (NULL for Android), filter.
        let values: [SQLValue] = [.text(registration.platform), .text(registration.token),
                                  registration.apnsEnvironment.map(SQLValue.text) ?? .null, .text(registration.filterJSON)]
        if let existing = try connection.texts(GatewaySQL.findDevice, [.text(host), .text(registration.deviceId)]).first {
            try connection.run(GatewaySQL.updateDevice, [.text(existing)] + values + [.integer(nowMs)])
            return .registered(registrationId: existing)
        }
        guard try connection.integer(GatewaySQL.countDevices, [.text(host)]) ?? 0 < Int64(GatewayLimits.devicesPerHost) else {
            return .tooManyDevices
        }
        try connection.run(GatewaySQL.insertDevice,
                           [.text(newRegistrationId), .text(host), .text(registration.deviceId)] + values + [.integer(nowMs)])
        return .registered(registrationId: newRegistrationId)
    }

    static func deleteDevice(registrationId: String, hostFingerprint: String, on connection: some GatewayConnection) throws -> Bool {
        try connection.run(GatewaySQL.deleteDevice, [.text(registrationId), .text(hostFingerprint)]) == 1
    }

    static func devices(hostFingerprint: String, on connection: some GatewayConnection) throws -> [GatewayDeviceSummary] {
        let rows = try connection.rows(GatewaySQL.listDevices,
                                       [.text(hostFingerprint), .integer(Int64(GatewayLimits.deviceListLimit))], columns: 4)
        return rows.map { row in
            GatewayDeviceSummary(registrationId: row[0] ?? "", deviceId: row[1] ?? "", platform: row[2] ?? "", dead: row[3] != nil)
        }
    }

    static func device(registrationId: String, on connection: some GatewayConnection) throws -> GatewayDevice? {
        try connection.rows(GatewaySQL.readDevice, [.text(registrationId)], columns: 5).first.map { row in
            GatewayDevice(registrationId: registrationId, hostFingerprint: row[0] ?? "", platform: row[1] ?? "",
                          token: row[2] ?? "", apnsEnvironment: row[3], dead: row[4] != nil)
        }
    }

    /// The reservations of one send, in order, under the host's quota lock; each admitted one
    /// is queued in the outbox for `holder`, due at `dueAt`.
    static func admitSends(hostFingerprint: String, registrationIds: [String], notification: GatewayNotification, nowMs: Int64,
                           holder: Int64, dueAt: Int64, on connection: some GatewayConnection) throws -> [GatewaySendAdmission] {
        try connection.lock(.sendQuota, host: hostFingerprint)
        return try registrationIds.map { id in
            let admission = try admitSend(hostFingerprint: hostFingerprint, registrationId: id, nowMs: nowMs, on: connection)
            if case .admitted(let sendId) = admission {
                try queue(GatewayQueuedNotification(sendId: sendId, acceptedAt: nowMs, notification: notification),
                          registrationId: id, hostFingerprint: hostFingerprint, holder: holder, dueAt: dueAt, on: connection)
            }
            return admission
        }
    }

    /// One reservation: ownership, dead mark, host hour window, registration day window, charge.
    private static func admitSend(hostFingerprint: String, registrationId: String, nowMs: Int64,
                                  on connection: some GatewayConnection) throws -> GatewaySendAdmission {
        guard let device = try device(registrationId: registrationId, on: connection),
              device.hostFingerprint == hostFingerprint else { return .notOwned }
        if device.dead { return .dead }
        let hostCount = try connection.integer(GatewaySQL.countHostSends,
                                               [.text(hostFingerprint), .integer(nowMs - GatewayLimits.hourMs)]) ?? 0
        guard hostCount < Int64(GatewayLimits.sendsPerHostPerHour) else { return .rateLimited }
        let deviceCount = try connection.integer(GatewaySQL.countRegistrationSends,
                                                 [.text(registrationId), .integer(nowMs - GatewayLimits.dayMs)]) ?? 0
        guard deviceCount < Int64(GatewayLimits.sendsPerRegistrationPerDay) else { return .rateLimited }
        let sendId = RandomUUID.lowercase()
        try connection.run(GatewaySQL.insertSend, [.text(sendId), .text(hostFingerprint), .text(registrationId), .integer(nowMs)])
        return .admitted(sendId: sendId)
    }

    static func markDead(registrationId: String, token: String, nowMs: Int64, on connection: some GatewayConnection) throws {
        try connection.run(GatewaySQL.markDead, [.text(registrationId), .text(token), .integer(nowMs)])
    }

    /// Challenges past their expiry by more than the grace period.
    static func pruneChallenges(nowMs: Int64, on connection: some GatewayConnection) throws -> Int {
        try connection.run(GatewaySQL.pruneChallenges, [.integer(nowMs - GatewayLimits.challengeGraceMs)])
    }

    static func pruneSessions(nowMs: Int64, on connection: some GatewayConnection) throws -> Int {
        try connection.run(GatewaySQL.pruneSessions, [.integer(nowMs)])
    }

    /// Send-log rows older than 25 h.
    static func pruneSendLog(nowMs: Int64, on connection: some GatewayConnection) throws -> Int {
        try connection.run(GatewaySQL.pruneSendLog, [.integer(nowMs - GatewayLimits.sendLogRetentionMs)])
    }

    /// Hosts whose last session was opened more than `idleMs` ago, their phones and sessions.
    static func pruneHosts(nowMs: Int64, idleMs: Int64, on connection: some GatewayConnection) throws -> Int {
        let cutoff: [SQLValue] = [.integer(nowMs - idleMs)]
        try connection.run(GatewaySQL.pruneIdleHostDevices, cutoff)
        try connection.run(GatewaySQL.pruneIdleHostSessions, cutoff)
        return try connection.run(GatewaySQL.pruneIdleHosts, cutoff)
    }

    /// A NOT NULL integer column read as text.
    static func integer(_ text: String?) -> Int64 { text.flatMap { Int64($0) } ?? 0 }
}
