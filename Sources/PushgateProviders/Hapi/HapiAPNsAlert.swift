import PushgateCore

/// The APNs alert that carries an encrypted envelope: the fixed `HAPI` / `New activity`
/// placeholder, `mutable-content` so the notification service extension decrypts `hapi.e`,
/// and the headers of the encrypted path. Used by a host in `apns` mode and a relay's ios lane.
///
/// - Important: protocol/hapi-push.md §8 "APNs: alert message" — body bytes exactly
///   `{"aps":{"mutable-content":1,"alert":{"title":"HAPI","body":"New activity"},"sound":"default"},"hapi":{"v":1,"e":"<envelope>"}}`
///   (no `/` escaping), `apns-push-type: alert`, `apns-priority` 10 or 5, `apns-expiration` (hapi: 0),
///   `apns-collapse-id` only when non-empty after truncation to 64 bytes. A relay's **extension**
///   (docs/relay.md "`POST /v1/push`: the hapi route") adds `aps.interruption-level` last when the
///   request names one.
public enum HapiAPNsAlert {
    /// The alert text every encrypted notification shows until the device decrypts it.
    public static let placeholderTitle = "HAPI"
    public static let placeholderBody = "New activity"
    /// `hapi.v`: the envelope version.
    public static let envelopeVersion: Int64 = 1

    /// The payload bytes for `envelope`, with `interruptionLevel` as `aps.interruption-level`.
    public static func payload(envelope: String, interruptionLevel: AlertAttention.Level? = nil) -> [UInt8] {
        let alert = JSONObject([("title", .string(placeholderTitle)), ("body", .string(placeholderBody))])
        var aps = JSONObject([("mutable-content", .integer(1)), ("alert", .object(alert)), ("sound", .string("default"))])
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        let hapi = JSONObject([("v", .integer(envelopeVersion)), ("e", .string(envelope))])
        return JSONValue.object(JSONObject([("aps", .object(aps)), ("hapi", .object(hapi))])).serializedBytes()
    }

    /// The notification for one device: topic `bundleId`, priority 10 or 5, `expiration` (hapi
    /// sends 0; Pushgate keeps trying an offline phone for a while, docs/hapi.md), and the
    /// collapse id truncated by ``HapiCollapseId`` (left out when empty). Throws
    /// ``APNsNotificationError`` for a token that is not even-length hex, a bad bundle id or priority.
    public static func notification(deviceToken: String, bundleId: String, envelope: String, collapseId: String?,
                                    priority: Int = 10, interruptionLevel: AlertAttention.Level? = nil,
                                    expiration: Int64) throws -> APNsNotification {
        guard priority == 10 || priority == 5 else { throw APNsNotificationError("priority must be 10 or 5") }
        return try APNsNotification.alert(deviceToken: deviceToken, bundleId: bundleId,
                                          payload: payload(envelope: envelope, interruptionLevel: interruptionLevel),
                                          collapseId: collapseId.flatMap(HapiCollapseId.truncate), priority: priority,
                                          expiration: expiration)
    }

    /// Reads an ``APNsClient`` outcome by the encrypted path's rules: 410 (any reason) and
    /// `BadDeviceToken` are dead; `DeviceTokenNotForTopic` is only failed (it usually means a
    /// wrong bundle id); a 429 is a throttle; a twice-expired provider token is failed.
    public static func outcome(_ outcome: APNsOutcome) -> HapiPushOutcome {
        switch outcome {
        case .delivered:
            return .sent
        case .dead(let reason) where reason == notForTopic:
            return .failed(reason: reason)
        case .dead(let reason):
            return .dead(reason: reason)
        case .transient(let reason, let failure):
            return .failed(reason: reason, failure: failure)
        }
    }

    private static let notForTopic = "DeviceTokenNotForTopic"
}
