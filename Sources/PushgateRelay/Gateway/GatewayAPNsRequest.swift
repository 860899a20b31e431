import PushgateCore
import PushgateProviders

/// The APNs push of one gateway delivery.
///
/// - Important: protocol/gateway.md §7.1 — topic `PUSHGATE_GATEWAY_APNS_TOPIC`, push type `alert`,
///   priority 10, `apns-expiration` = floor(now / 1000) + 14 400, the collapse id always;
///   body `{"aps":{"alert":{title,body},"sound":"default","thread-id":<fingerprint>},"orca":{…}}`.
enum GatewayAPNsRequest {
    /// How long APNs keeps trying, in seconds (4 h).
    static let lifetimeSeconds: Int64 = 14_400

    static func payload(_ delivery: GatewayDelivery) -> [UInt8] {
        let alert = JSONObject([("title", .string(delivery.title)), ("body", .string(delivery.body))])
        let aps = JSONObject([("alert", .object(alert)), ("sound", "default"), ("thread-id", .string(delivery.hostFingerprint))])
        return JSONValue.object(JSONObject([("aps", .object(aps)), ("orca", .object(delivery.orca))])).serializedBytes()
    }

    /// The notification for `token`; throws when APNs would refuse it (e.g. a payload over 4 KiB).
    static func notification(_ delivery: GatewayDelivery, token: String, topic: String, nowMs: Int64) throws -> APNsNotification {
        try APNsNotification.alert(deviceToken: token, bundleId: topic, payload: payload(delivery),
                                   collapseId: delivery.collapseId, priority: 10,
                                   expiration: nowMs / 1_000 + lifetimeSeconds)
    }

    /// The environment of a registration; a missing one is production.
    static func environment(_ stored: String?) -> APNsEnvironment {
        stored.flatMap(APNsEnvironment.init(rawValue:)) ?? .production
    }
}
