import PushgateCore

/// Checks one request the way APNs does, in a fixed order: method, path, duplicate headers,
/// provider token, topic, push type, priority, collapse id, apns-id, expiration, payload.
///
/// - Important: the status/reason pairs follow Apple's documented table (the relay relies on
///   them: 410, `BadDeviceToken`, `Unregistered`, `DeviceTokenNotForTopic` are dead tokens,
///   docs/relay.md "Send results"). Apple lists no reason for a payload that is not a JSON
///   object, so the fake answers 400 `PayloadEmpty` for it, as for an empty body. A `background`
///   push must have priority 5 (Apple: 10, also by default, is an error for a push that only
///   sets `content-available`) and the bare bundle id as its topic (docs/fake-apns.md).
public struct APNsRequestValidator: Sendable {
    /// The `apns-push-type` values APNs accepts.
    public static let pushTypes: Set<String> = [
        "alert", "background", "liveactivity", "voip", "complication", "fileprovider", "mdm", "location", "pushtotalk",
    ]

    /// The topic suffix a push type requires after the bundle id, where it requires one.
    public static let topicSuffixes: [String: String] = [
        "liveactivity": ".push-type.liveactivity",
        "voip": ".voip",
        "complication": ".complication",
        "fileprovider": ".pushkit.fileprovider",
        "location": ".location-query",
        "pushtotalk": ".voip-ptt",
    ]

    /// Payload limit for VoIP pushes; every other push type gets ``payloadLimit``.
    public static let voipPayloadLimit = 5120
    /// Payload limit for all push types but VoIP.
    public static let payloadLimit = 4096
    /// Longest `apns-collapse-id`, in bytes.
    public static let collapseIdLimit = 64

    private static let devicePathPrefix = "/3/device/"
    private static let checkedHeaders = [
        "authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-collapse-id", "apns-id", "apns-expiration",
    ]

    public init() {}

    /// Validates `request`; `checkProviderToken` judges the JWT that follows `bearer `.
    public func validate(_ request: FakeHTTP2Request, checkProviderToken: (String) -> ProviderTokenStatus) -> APNsVerdict {
        guard request.method == "POST" else { return APNsVerdict(status: 405, reason: .methodNotAllowed) }
        guard request.path.hasPrefix(Self.devicePathPrefix) else { return APNsVerdict(status: 404, reason: .badPath) }
        let token = String(request.path.utf8.dropFirst(Self.devicePathPrefix.utf8.count))!
        guard !token.isEmpty else { return APNsVerdict(status: 400, reason: .missingDeviceToken) }
        guard Self.isEvenLengthHex(token) else { return APNsVerdict(status: 400, reason: .badDeviceToken, deviceToken: token) }

        func fail(_ status: Int, _ reason: APNsReason) -> APNsVerdict {
            APNsVerdict(status: status, reason: reason, deviceToken: token)
        }
        for name in Self.checkedHeaders where request.headers.lazy.filter({ $0.name == name }).count > 1 {
            return fail(400, .duplicateHeaders)
        }

        guard let authorization = request.header("authorization"), !authorization.isEmpty else {
            return fail(403, .missingProviderToken)
        }
        guard authorization.utf8.count > 7, Self.hasBearerScheme(authorization) else { return fail(403, .invalidProviderToken) }
        switch checkProviderToken(String(authorization.dropFirst(7))) {
        case .valid: break
        case .invalid: return fail(403, .invalidProviderToken)
        case .expired: return fail(403, .expiredProviderToken)
        }

        guard let topic = request.header("apns-topic"), !topic.isEmpty else { return fail(400, .missingTopic) }
        guard let pushType = request.header("apns-push-type"), Self.pushTypes.contains(pushType) else {
            return fail(400, .invalidPushType)
        }
        if let suffix = Self.topicSuffixes[pushType], !topic.hasSuffix(suffix) { return fail(400, .badTopic) }
        if pushType == "background", Self.topicSuffixes.values.contains(where: topic.hasSuffix) { return fail(400, .badTopic) }
        let priority = request.header("apns-priority")
        if let priority, !["1", "5", "10"].contains(priority) { return fail(400, .badPriority) }
        if pushType == "background", priority != "5" { return fail(400, .badPriority) }
        if let collapseId = request.header("apns-collapse-id"), collapseId.utf8.count > Self.collapseIdLimit {
            return fail(400, .badCollapseId)
        }
        if let apnsId = request.header("apns-id"), !Self.isUUID(apnsId) { return fail(400, .badMessageId) }
        if let expiration = request.header("apns-expiration"), !Self.isDecimal(expiration) {
            return fail(400, .badExpirationDate)
        }

        guard !request.body.isEmpty else { return fail(400, .payloadEmpty) }
        let limit = pushType == "voip" ? Self.voipPayloadLimit : Self.payloadLimit
        guard request.body.count <= limit else { return fail(413, .payloadTooLarge) }
        guard let payload = try? JSONValue.parse(request.body), payload.objectValue != nil else {
            return fail(400, .payloadEmpty)
        }
        if payload["aps"]?["event"] == "start" {
            // A push-to-start goes to a Live Activity token only, and lacking what ActivityKit needs
            // to make the activity it starts nothing (docs/fake-apns.md).
            guard pushType == "liveactivity" else { return fail(400, .invalidPushType) }
            guard Self.isCompleteStart(payload["aps"]) else { return fail(400, .payloadEmpty) }
        }
        return APNsVerdict(status: 200, reason: nil, deviceToken: token, payload: payload)
    }

    /// Whether a start's `aps` has every member ActivityKit needs to start an activity: an integer
    /// `timestamp`, the `content-state` and `attributes` objects, a non-empty `attributes-type`
    /// and an `alert` with a `title`.
    private static func isCompleteStart(_ aps: JSONValue?) -> Bool {
        guard let aps else { return false }
        return aps["timestamp"]?.safeIntegerValue != nil && aps["content-state"]?.objectValue != nil
            && aps["attributes"]?.objectValue != nil && aps["attributes-type"]?.stringValue?.isEmpty == false
            && aps["alert"]?["title"]?.stringValue != nil
    }

    /// `bearer ` in any letter case, compared byte-wise (no lower-cased copy of the JWT per request).
    private static func hasBearerScheme(_ authorization: String) -> Bool {
        zip(authorization.utf8.prefix(7), "bearer ".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    private static func isEvenLengthHex(_ text: String) -> Bool {
        text.utf8.count % 2 == 0 && text.utf8.allSatisfy(Hex.isDigit)
    }

    private static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 19 && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// `8-4-4-4-12` hex digits, as APNs requires of `apns-id`.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index) ? bytes[index] == 0x2D : Hex.isDigit(bytes[index])
        }
    }
}
