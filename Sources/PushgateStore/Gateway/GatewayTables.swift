import PushgateCore

/// The gateway operations as SQL on one connection; the caller provides the transaction.
enum GatewayTables {
    static func insertChallenge(_ challenge: GatewayChallengeRecord, on connection: SQLiteConnection) throws {
        try connection.withStatement(GatewaySQL.insertChallenge) { statement in
            try statement.bind(challenge.challengeId, at: 1)
            try statement.bind(challenge.hostFingerprint, at: 2)
            try statement.bind(challenge.hostPublicKeyB64, at: 3)
            try statement.bind(challenge.secretHash, at: 4)
            if let transcript = challenge.transcriptB64 { try statement.bind(transcript, at: 5) } else { try statement.bindNull(at: 5) }
            try statement.bind(challenge.expiresAt, at: 6)
            try statement.step()
        }
    }

    static func redeemChallenge(id: String, proofHash: String?, nowMs: Int64, sessionTokenHash: String,
                                sessionExpiresAt: Int64, on connection: SQLiteConnection) throws -> ChallengeRedemption {
        let row = try connection.withStatement(GatewaySQL.readChallenge) { statement -> (String, String, String, Int64, Bool)? in
            try statement.bind(id, at: 1)
            guard try statement.step() else { return nil }
            return (statement.string(at: 0) ?? "", statement.string(at: 1) ?? "", statement.string(at: 2) ?? "",
                    statement.int64(at: 3), !statement.isNull(at: 4))
        }
        guard let (fingerprint, publicKey, secretHash, expiresAt, consumed) = row else { return .unknownChallenge }
        guard !consumed, nowMs <= expiresAt, let proofHash,
              ConstantTime.equals(Array(proofHash.utf8), Array(secretHash.utf8)) else { return .refused }
        let won = try connection.withStatement(GatewaySQL.consumeChallenge) { statement in
            try statement.bind(id, at: 1)
            try statement.bind(nowMs, at: 2)
            try statement.step()
            return connection.changes == 1
        }
        guard won else { return .refused }
        try connection.withStatement(GatewaySQL.upsertHost) { statement in
            try statement.bind(fingerprint, at: 1)
            try statement.bind(publicKey, at: 2)
            try statement.bind(nowMs, at: 3)
            try statement.step()
        }
        try connection.withStatement(GatewaySQL.deleteHostSessions) { statement in
            try statement.bind(fingerprint, at: 1)
            try statement.step()
        }
        try connection.withStatement(GatewaySQL.insertSession) { statement in
            try statement.bind(sessionTokenHash, at: 1)
            try statement.bind(fingerprint, at: 2)
            try statement.bind(sessionExpiresAt, at: 3)
            try statement.bind(nowMs, at: 4)
            try statement.step()
        }
        return .redeemed(hostFingerprint: fingerprint)
    }

    static func session(tokenHash: String, on connection: SQLiteConnection) throws -> GatewaySessionRecord? {
        try connection.withStatement(GatewaySQL.readSession) { statement in
            try statement.bind(tokenHash, at: 1)
            guard try statement.step() else { return nil }
            return GatewaySessionRecord(hostFingerprint: statement.string(at: 0) ?? "", expiresAt: statement.int64(at: 1))
        }
    }

    static func registerDevice(_ registration: GatewayDeviceRegistration, newRegistrationId: String, nowMs: Int64,
                               on connection: SQLiteConnection) throws -> GatewayDeviceOutcome {
        let existing = try connection.withStatement(GatewaySQL.findDevice) { statement in
            try statement.bind(registration.hostFingerprint, at: 1)
            try statement.bind(registration.deviceId, at: 2)
            return try statement.step() ? statement.string(at: 0) : nil
        }
        if let existing {
            try connection.withStatement(GatewaySQL.updateDevice) { statement in
                try statement.bind(existing, at: 1)
                try bindDeviceValues(registration, from: 2, on: statement)
                try statement.bind(nowMs, at: 6)
                try statement.step()
            }
            return .registered(registrationId: existing)
        }
        let count = try connection.withStatement(GatewaySQL.countDevices) { statement in
            try statement.bind(registration.hostFingerprint, at: 1)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
        guard count < GatewayLimits.devicesPerHost else { return .tooManyDevices }
        try connection.withStatement(GatewaySQL.insertDevice) { statement in
            try statement.bind(newRegistrationId, at: 1)
            try statement.bind(registration.hostFingerprint, at: 2)
            try statement.bind(registration.deviceId, at: 3)
            try bindDeviceValues(registration, from: 4, on: statement)
            try statement.bind(nowMs, at: 8)
            try statement.step()
        }
        return .registered(registrationId: newRegistrationId)
    }

    /// Binds platform, token, environment (NULL for Android) and filter at `first`…`first + 3`.
    private static func bindDeviceValues(_ registration: GatewayDeviceRegistration, from first: Int32,
                                         on statement: SQLiteStatement) throws {
        try statement.bind(registration.platform, at: first)
        try statement.bind(registration.token, at: first + 1)
        if let environment = registration.apnsEnvironment {
            try statement.bind(environment, at: first + 2)
        } else {
            try statement.bindNull(at: first + 2)
        }
        try statement.bind(registration.filterJSON, at: first + 3)
    }

    static func deleteDevice(registrationId: String, hostFingerprint: String, on connection: SQLiteConnection) throws -> Bool {
        try connection.withStatement(GatewaySQL.deleteDevice) { statement in
            try statement.bind(registrationId, at: 1)
            try statement.bind(hostFingerprint, at: 2)
            try statement.step()
            return connection.changes == 1
        }
    }

    static func devices(hostFingerprint: String, on connection: SQLiteConnection) throws -> [GatewayDeviceSummary] {
        try connection.withStatement(GatewaySQL.listDevices) { statement in
            try statement.bind(hostFingerprint, at: 1)
            try statement.bind(Int64(GatewayLimits.deviceListLimit), at: 2)
            var rows: [GatewayDeviceSummary] = []
            while try statement.step() {
                rows.append(GatewayDeviceSummary(registrationId: statement.string(at: 0) ?? "", deviceId: statement.string(at: 1) ?? "",
                                                 platform: statement.string(at: 2) ?? "", dead: statement.int64(at: 3) != 0))
            }
            return rows
        }
    }

    static func device(registrationId: String, on connection: SQLiteConnection) throws -> GatewayDevice? {
        try connection.withStatement(GatewaySQL.readDevice) { statement in
            try statement.bind(registrationId, at: 1)
            guard try statement.step() else { return nil }
            return GatewayDevice(registrationId: registrationId, hostFingerprint: statement.string(at: 0) ?? "",
                                 platform: statement.string(at: 1) ?? "", token: statement.string(at: 2) ?? "",
                                 apnsEnvironment: statement.string(at: 3), dead: statement.int64(at: 4) != 0)
        }
    }

    /// One reservation: ownership, dead mark, host hour window, registration day window, charge.
    static func admitSend(hostFingerprint: String, registrationId: String, nowMs: Int64,
                          on connection: SQLiteConnection) throws -> GatewaySendAdmission {
        guard let device = try device(registrationId: registrationId, on: connection),
              device.hostFingerprint == hostFingerprint else { return .notOwned }
        if device.dead { return .dead }
        let hostCount = try count(GatewaySQL.countHostSends, key: hostFingerprint, after: nowMs - GatewayLimits.hourMs, on: connection)
        guard hostCount < GatewayLimits.sendsPerHostPerHour else { return .rateLimited }
        let deviceCount = try count(GatewaySQL.countRegistrationSends, key: registrationId,
                                    after: nowMs - GatewayLimits.dayMs, on: connection)
        guard deviceCount < GatewayLimits.sendsPerRegistrationPerDay else { return .rateLimited }
        try connection.withStatement(GatewaySQL.insertSend) { statement in
            try statement.bind(RandomUUID.lowercase(), at: 1)
            try statement.bind(hostFingerprint, at: 2)
            try statement.bind(registrationId, at: 3)
            try statement.bind(nowMs, at: 4)
            try statement.step()
        }
        return .admitted
    }

    private static func count(_ sql: String, key: String, after windowStart: Int64, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement(sql) { statement in
            try statement.bind(key, at: 1)
            try statement.bind(windowStart, at: 2)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    static func markDead(registrationId: String, token: String, nowMs: Int64, on connection: SQLiteConnection) throws {
        try connection.withStatement(GatewaySQL.markDead) { statement in
            try statement.bind(registrationId, at: 1)
            try statement.bind(token, at: 2)
            try statement.bind(nowMs, at: 3)
            try statement.step()
        }
    }

    /// Runs a `DELETE … WHERE column < ?1` prune; how many rows went.
    static func prune(_ sql: String, before cutoff: Int64, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement(sql) { statement in
            try statement.bind(cutoff, at: 1)
            try statement.step()
            return connection.changes
        }
    }
}
