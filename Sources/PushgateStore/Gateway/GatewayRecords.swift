/// A challenge as the gateway stores it: who it is for and the hash of the expected proof.
///
/// - Important: protocol/gateway.md §8 — never the secret, the ephemeral secret key or the proof.
public struct GatewayChallengeRecord: Sendable, Equatable {
    public var challengeId: String
    public var hostFingerprint: String
    /// b64 as received.
    public var hostPublicKeyB64: String
    /// b64url(SHA-256(expected proof)).
    public var secretHash: String
    /// Optional b64 copy of the transcript, read by nothing.
    public var transcriptB64: String?
    public var expiresAt: Int64

    public init(challengeId: String, hostFingerprint: String, hostPublicKeyB64: String, secretHash: String,
                transcriptB64: String?, expiresAt: Int64) {
        self.challengeId = challengeId
        self.hostFingerprint = hostFingerprint
        self.hostPublicKeyB64 = hostPublicKeyB64
        self.secretHash = secretHash
        self.transcriptB64 = transcriptB64
        self.expiresAt = expiresAt
    }
}

/// What answering a challenge did.
public enum ChallengeRedemption: Sendable, Equatable {
    /// No such challenge (never issued, or pruned): 401 `invalid_challenge`.
    case unknownChallenge
    /// Consumed already, expired, or the proof is wrong: 401 `invalid_proof`; nothing changed.
    case refused
    /// Consumed now; the host row is upserted and the new session is the host's only one.
    case redeemed(hostFingerprint: String)
    /// A host not stored yet while `push_hosts` is at its ceiling: 503 `host_limit`; nothing changed.
    case hostLimit
    /// A host not stored yet beyond the client's new hosts per hour: 429 `rate_limited`; nothing changed.
    case newHostRateLimited
}

/// A live or expired session found by its token hash.
public struct GatewaySessionRecord: Sendable, Equatable {
    public var hostFingerprint: String
    public var expiresAt: Int64

    public init(hostFingerprint: String, expiresAt: Int64) {
        self.hostFingerprint = hostFingerprint
        self.expiresAt = expiresAt
    }
}

/// One phone as a host registers it (`POST /v1/devices`).
public struct GatewayDeviceRegistration: Sendable, Equatable {
    public var hostFingerprint: String
    public var deviceId: String
    /// `ios` or `android`.
    public var platform: String
    public var token: String
    /// `sandbox` or `production` for iOS, `nil` for Android.
    public var apnsEnvironment: String?
    /// The host's filter as JSON text; stored, never applied.
    public var filterJSON: String

    public init(hostFingerprint: String, deviceId: String, platform: String, token: String, apnsEnvironment: String?,
                filterJSON: String) {
        self.hostFingerprint = hostFingerprint
        self.deviceId = deviceId
        self.platform = platform
        self.token = token
        self.apnsEnvironment = apnsEnvironment
        self.filterJSON = filterJSON
    }
}

/// What registering a phone did.
public enum GatewayDeviceOutcome: Sendable, Equatable {
    /// Inserted or updated (dead mark cleared); the id is stable across re-registration.
    case registered(registrationId: String)
    /// A new `deviceId` while the host already has the maximum: 409 `too_many_devices`.
    case tooManyDevices
}

/// One row of `GET /v1/devices`.
public struct GatewayDeviceSummary: Sendable, Equatable {
    public var registrationId: String
    public var deviceId: String
    public var platform: String
    public var dead: Bool

    public init(registrationId: String, deviceId: String, platform: String, dead: Bool) {
        self.registrationId = registrationId
        self.deviceId = deviceId
        self.platform = platform
        self.dead = dead
    }
}

/// A registration as delivery needs it.
public struct GatewayDevice: Sendable, Equatable {
    public var registrationId: String
    public var hostFingerprint: String
    public var platform: String
    public var token: String
    public var apnsEnvironment: String?
    public var dead: Bool

    public init(registrationId: String, hostFingerprint: String, platform: String, token: String,
                apnsEnvironment: String?, dead: Bool) {
        self.registrationId = registrationId
        self.hostFingerprint = hostFingerprint
        self.platform = platform
        self.token = token
        self.apnsEnvironment = apnsEnvironment
        self.dead = dead
    }
}

/// The verdict on one registration of a send, in the order of protocol/gateway.md §4.
public enum GatewaySendAdmission: Sendable, Equatable {
    /// Unknown, or another host's: `error`, nothing charged.
    case notOwned
    /// Marked dead: `dead`, nothing charged.
    case dead
    /// A quota of §5 refused it: `rate_limited`, nothing logged.
    case rateLimited
    /// Charged (one send-log row) and queued (one outbox row), both under `sendId`.
    case admitted(sendId: String)
}

/// One accepted `/v1/send` notification: what its window and the outbox table keep of it.
///
/// - Important: docs/gateway.md "Devices, send, quotas" — the fields of the request's `notification` object.
public struct GatewayNotification: Sendable, Equatable {
    public var notificationId: String?
    public var notificationSeq: Int64
    public var notificationEpoch: String
    public var source: String
    /// `needs-input`, `finished` or nil.
    public var agentState: String?
    public var title: String
    public var body: String
    public var worktreeId: String?

    public init(notificationId: String?, notificationSeq: Int64, notificationEpoch: String, source: String, agentState: String?,
                title: String, body: String, worktreeId: String?) {
        self.notificationId = notificationId
        self.notificationSeq = notificationSeq
        self.notificationEpoch = notificationEpoch
        self.source = source
        self.agentState = agentState
        self.title = title
        self.body = body
        self.worktreeId = worktreeId
    }
}
