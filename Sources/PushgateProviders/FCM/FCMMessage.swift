import PushgateCore

/// One FCM HTTP v1 message for one registration token: the `message` object, data only.
///
/// - Important: hapi-path.md §8 — never a `notification` block (Android would not hand a
///   background message to the app) and never a `collapse_key`.
public struct FCMMessage: Sendable, Equatable {
    /// The package a relay's messages are restricted to by default: hapi's Android app.
    public static let defaultRelayPackageName = "run.hapi.companion"

    /// The registration token, as stored (case-sensitive).
    public let token: String
    /// The `message` object.
    public let message: JSONObject

    /// The request body, `{"message":{…}}`.
    public var body: [UInt8] { JSONValue.object(JSONObject([("message", .object(message))])).serializedBytes() }

    /// Direct mode (the operator's own Firebase project): the payload's fields are the `data`
    /// map, all strings; `android.priority` `HIGH`, `android.ttl` (how long FCM keeps trying an
    /// offline device), plus `direct_boot_ok: true` for a Wear OS row.
    public static func direct(token: String, payload: HapiPayload, wear: Bool = false, ttlSeconds: Int) -> FCMMessage {
        var android = JSONObject([("priority", .string("HIGH")), ("ttl", .string(ttl(ttlSeconds)))])
        if wear { android["direct_boot_ok"] = .bool(true) }
        return FCMMessage(token: token, message: JSONObject([
            ("token", .string(token)), ("data", .object(payload.json)), ("android", .object(android)),
        ]))
    }

    /// A relay's Android lane: exactly `hapi_v` `"1"` and `hapi_e` in `data`, `priority` `HIGH`
    /// (`NORMAL` when the relay request asked for 5), `ttl` and `restricted_package_name`.
    public static func relay(token: String, envelope: String, priority: Int = 10,
                             packageName: String = defaultRelayPackageName, ttlSeconds: Int) -> FCMMessage {
        let data = JSONObject([("hapi_v", .string("1")), ("hapi_e", .string(envelope))])
        let android = JSONObject([
            ("priority", .string(priority == 5 ? "NORMAL" : "HIGH")), ("ttl", .string(ttl(ttlSeconds))),
            ("restricted_package_name", .string(packageName)),
        ])
        return FCMMessage(token: token, message: JSONObject([
            ("token", .string(token)), ("data", .object(data)), ("android", .object(android)),
        ]))
    }

    /// The longest `android.ttl` FCM accepts: 28 days (a longer one is refused with 400).
    public static let maxTTLSeconds = 2_419_200

    /// FCM's duration form, `"3600s"`, at most 28 days; `"0s"` delivers now or never.
    private static func ttl(_ seconds: Int) -> String { "\(min(seconds, maxTTLSeconds))s" }
}
