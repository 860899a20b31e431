import PushgateCore

/// One push for one device token: where it goes (token, topic), how APNs treats it (push type,
/// priority, expiration, collapse id) and the JSON payload bytes. Validated on creation.
public struct APNsNotification: Sendable, Equatable {
    /// Longest payload APNs accepts, in bytes (VoIP: ``maxVoIPPayloadBytes``).
    public static let maxPayloadBytes = 4096
    public static let maxVoIPPayloadBytes = 5120
    /// Longest `apns-collapse-id`, in bytes.
    public static let maxCollapseIdBytes = 64

    /// The device (or Live Activity) token: hex, even length.
    public let deviceToken: String
    /// `apns-topic`: the bundle id, with the push type's suffix where one is required.
    public let topic: String
    public let pushType: APNsPushType
    /// `apns-priority`: 10 (immediate), 5 (power-conscious) or 1 (lowest).
    public let priority: Int
    /// `apns-expiration`: seconds since the epoch until which APNs keeps retrying; 0 = deliver once, now.
    public let expiration: Int64
    /// `apns-collapse-id`, sent only when present.
    public let collapseId: String?
    /// The JSON payload, sent as is.
    public let payload: [UInt8]

    public init(deviceToken: String, topic: String, pushType: APNsPushType, priority: Int = 10, expiration: Int64 = 0,
                collapseId: String? = nil, payload: [UInt8]) throws {
        guard !deviceToken.isEmpty, deviceToken.utf8.count % 2 == 0, deviceToken.utf8.allSatisfy(Hex.isDigit) else {
            throw APNsNotificationError("the device token must be a non-empty, even-length hex string")
        }
        guard !topic.isEmpty, topic.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APNsNotificationError("the topic must be a non-empty bundle id")
        }
        guard [1, 5, 10].contains(priority) else { throw APNsNotificationError("priority must be 1, 5 or 10") }
        guard expiration >= 0 else { throw APNsNotificationError("expiration must not be negative") }
        if let collapseId {
            guard !collapseId.isEmpty, collapseId.utf8.count <= Self.maxCollapseIdBytes,
                  collapseId.utf8.allSatisfy({ $0 != 0x0A && $0 != 0x0D && $0 != 0 }) else {
                throw APNsNotificationError("the collapse id must be 1 to \(Self.maxCollapseIdBytes) bytes on one line")
            }
        }
        let limit = pushType == .voip ? Self.maxVoIPPayloadBytes : Self.maxPayloadBytes
        guard !payload.isEmpty, payload.count <= limit else {
            throw APNsNotificationError("the payload must be 1 to \(limit) bytes")
        }
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.payload = payload
    }

    /// A visible notification for the app `bundleId`.
    ///
    /// - Important: topic is the bundle id, push type `alert` (protocol/signed-relay.md §4).
    public static func alert(deviceToken: String, bundleId: String, payload: [UInt8], collapseId: String? = nil,
                             priority: Int = 10, expiration: Int64 = 0) throws -> APNsNotification {
        try APNsNotification(deviceToken: deviceToken, topic: bundleId, pushType: .alert, priority: priority,
                             expiration: expiration, collapseId: collapseId, payload: payload)
    }

    /// A Live Activity update or end for the app `bundleId`; Live Activity pushes carry no collapse id.
    ///
    /// - Important: topic `<bundleId>.push-type.liveactivity`, push type `liveactivity` (protocol/signed-relay.md §5).
    public static func liveActivity(deviceToken: String, bundleId: String, payload: [UInt8], priority: Int = 10,
                                    expiration: Int64 = 0) throws -> APNsNotification {
        try APNsNotification(deviceToken: deviceToken, topic: bundleId + ".push-type.liveactivity", pushType: .liveActivity,
                             priority: priority, expiration: expiration, payload: payload)
    }

    /// A silent background push for the app `bundleId`: push type `background`, priority 5 (APNs
    /// refuses 10 for it), no collapse id (docs/app-integration.md, "Dismissal").
    public static func background(deviceToken: String, bundleId: String, payload: [UInt8],
                                  expiration: Int64 = 0) throws -> APNsNotification {
        try APNsNotification(deviceToken: deviceToken, topic: bundleId, pushType: .background, priority: 5,
                             expiration: expiration, payload: payload)
    }

    /// How long APNs and FCM keep trying an offline device by default: an hour, so a phone out of
    /// coverage for a while still gets the push (docs/relay.md "Expiry").
    public static let defaultTTLSeconds = 3_600
    /// The longest TTL a setting may ask for: 30 days, APNs' own limit.
    public static let maxTTLSeconds = 2_592_000

    /// The `apns-expiration` of a push APNs may keep trying for `ttlSeconds` after `nowMs`; 0
    /// (deliver now or never) when `ttlSeconds` is 0.
    public static func expiration(ttlSeconds: Int, nowMs: Int64) -> Int64 {
        ttlSeconds == 0 ? 0 : nowMs / 1_000 + Int64(ttlSeconds)
    }

    /// The `apns-expiration` of a Live Activity push: an update is worth delivering until it goes
    /// stale, an end until its dismissal date (0 once that has passed: an outdated state is not
    /// worth delivering later); without that date, ``expiration(ttlSeconds:nowMs:)``.
    public static func expiration(of push: LiveActivityPush, ttlSeconds: Int, nowMs: Int64) -> Int64 {
        guard let date = push.event == .end ? push.dismissalDate : push.staleDate else {
            return expiration(ttlSeconds: ttlSeconds, nowMs: nowMs)
        }
        return date > nowMs / 1_000 ? date : 0
    }
}

/// Why an ``APNsNotification`` could not be built.
public struct APNsNotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which field is wrong, and how.
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { "invalid APNs notification: \(message)" }
}
