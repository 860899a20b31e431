import PushgateCore
import PushgateStore

/// `POST /v1/host/challenge`: `{"v":1,"hostPublicKeyB64":…}`.
///
/// - Important: protocol/gateway.md §2.1 — a key that is not canonical b64 of 32 bytes is 400.
struct GatewayChallengeRequest {
    let hostPublicKey: [UInt8]
    let hostPublicKeyB64: String

    init(body: [UInt8]) throws(RelayError) {
        let fields = try GatewayFields.body(body, required: ["hostPublicKeyB64"])
        hostPublicKeyB64 = try fields.string("hostPublicKeyB64", chars: 44...44)
        guard let key = try? GatewayBase64.decode(hostPublicKeyB64, byteCount: NaClBox.publicKeyBytes) else { throw .invalidRequest }
        hostPublicKey = key
    }
}

/// `POST /v1/host/session`: `{"v":1,"challengeId":…,"proofB64":…}`.
///
/// - Important: protocol/gateway.md §2.2 — the proof must have the shape of b64 for 32 bytes
///   (else 400); a non-canonical encoding of that shape is judged later, as `invalid_proof`.
struct GatewaySessionRequest {
    let challengeId: String
    let proofB64: String

    init(body: [UInt8]) throws(RelayError) {
        let fields = try GatewayFields.body(body, required: ["challengeId", "proofB64"])
        challengeId = try fields.string("challengeId", chars: 1...128)
        proofB64 = try fields.string("proofB64", chars: 44...44)
        guard GatewayBase64.hasShape(proofB64, byteCount: 32) else { throw .invalidRequest }
    }

    /// b64url(SHA-256(proof)), or `nil` when the proof is not canonical.
    var proofHash: String? {
        (try? GatewayBase64.decode(proofB64, byteCount: 32)).map(HostProof.storedHash(ofProof:))
    }
}

/// `POST /v1/devices`: one phone's registration.
///
/// - Important: protocol/gateway.md §3.1 — strict at every level; `apnsEnvironment` required for
///   iOS and forbidden for Android; filter lists of distinct known values.
struct GatewayDeviceRequest {
    static let sources: Set<String> = ["agent-task-complete", "terminal-bell", "plugin"]
    static let agentStates: Set<String> = ["needs-input", "finished"]

    let deviceId: String
    let platform: String
    let token: String
    let apnsEnvironment: String?
    /// `{"sources":[…],"agentStates":[…]}` as stored.
    let filterJSON: String

    init(body: [UInt8]) throws(RelayError) {
        let fields = try GatewayFields.body(body, required: ["deviceId", "platform", "token", "filter"],
                                            optional: ["apnsEnvironment"])
        deviceId = try fields.string("deviceId", chars: 1...128)
        platform = try fields.oneOf("platform", ["ios", "android"])
        token = try fields.string("token", chars: 1...4_096)
        if platform == "ios" {
            guard token.utf8.count == 64, token.utf8.allSatisfy(Hex.isDigit) else { throw .invalidRequest }
            apnsEnvironment = try fields.oneOf("apnsEnvironment", ["sandbox", "production"])
        } else {
            guard token.utf8.count >= 32, token.utf8.allSatisfy(DeviceToken.isFCMTokenByte) else { throw .invalidRequest }
            guard !fields.object.keys.contains("apnsEnvironment") else { throw .invalidRequest }
            apnsEnvironment = nil
        }
        let filter = try fields.nested("filter", required: ["sources", "agentStates"])
        let sources = try filter.distinctValues("sources", from: Self.sources)
        let states = try filter.distinctValues("agentStates", from: Self.agentStates)
        filterJSON = JSONValue.object(JSONObject([
            ("sources", .array(sources.map(JSONValue.string))), ("agentStates", .array(states.map(JSONValue.string))),
        ])).serialized()
    }
}

/// `POST /v1/send`: one notification for up to 20 registrations.
///
/// - Important: protocol/gateway.md §4 — 1–20 ids counted before de-duplication; the
///   `agentState` key is required (its value may be null); lengths in UTF-16 code units.
struct GatewaySendRequest {
    static let maxRecipients = 20

    /// The ids as sent, duplicates included.
    let registrationIds: [String]
    let notification: GatewayNotification

    init(body: [UInt8]) throws(RelayError) {
        let fields = try GatewayFields.body(body, required: ["registrationIds", "notification"])
        guard let ids = fields.object["registrationIds"]?.arrayValue, (1...Self.maxRecipients).contains(ids.count) else {
            throw .invalidRequest
        }
        registrationIds = try ids.map { value throws(RelayError) in
            guard let id = value.stringValue, (1...128).contains(id.utf16.count) else { throw .invalidRequest }
            return id
        }
        let note = try fields.nested("notification",
                                     required: ["notificationSeq", "notificationEpoch", "source", "agentState", "title", "body"],
                                     optional: ["notificationId", "worktreeId"])
        guard let seq = note.object["notificationSeq"]?.safeIntegerValue, seq >= 0 else { throw .invalidRequest }
        let agentState: String?
        switch note.object["agentState"] {
        case .null?: agentState = nil
        default: agentState = try note.oneOf("agentState", GatewayDeviceRequest.agentStates)
        }
        notification = GatewayNotification(
            notificationId: try note.optionalString("notificationId", chars: 1...256),
            notificationSeq: seq,
            notificationEpoch: try note.string("notificationEpoch", chars: 1...128),
            source: try note.oneOf("source", GatewayDeviceRequest.sources),
            agentState: agentState,
            title: try note.string("title", chars: 1...80),
            body: try note.string("body", chars: 0...180),
            worktreeId: try note.optionalString("worktreeId", chars: 1...256))
    }

    /// The ids without repeats, first occurrence kept.
    var distinctRegistrationIds: [String] {
        var seen = Set<String>()
        return registrationIds.filter { seen.insert($0).inserted }
    }
}
