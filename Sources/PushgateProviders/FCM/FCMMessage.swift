import PushgateCore

/// One FCM HTTP v1 message for one registration token: the `message` object.
///
/// - Important: docs/relay.md "`POST /v1/push`: the hapi route" — hapi's messages are data only: never a `notification` block
///   (Android would not hand a background message to the app) and never a `collapse_key`.
///   Alerts of the signed routes are notification messages (``alert(token:title:body:data:collapseId:badge:channelId:packageName:ttlSeconds:level:timeSensitiveChannelId:)``).
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

    /// An alert for a signed-route Android token (docs/relay.md "Android tokens"), built the same
    /// way by the relay and by a host in direct mode: a notification message — `notification`
    /// `title`/`body`, the string `data` map, `android.priority` `HIGH`, `android.ttl`, and
    /// `android.notification` with `channel_id`, `tag` = `collapseId` (a later push replaces the
    /// banner; never a `collapse_key`, of which FCM keeps only four per device and drops the rest)
    /// and `notification_count` = `badge`; `restricted_package_name` when one is set.
    /// The attention level sets the priority (docs/app-integration.md, "Android"): a
    /// time-sensitive alert goes to `timeSensitiveChannelId` (a high-importance channel) with
    /// `notification_priority` `PRIORITY_HIGH`; a passive one is `android.priority` `NORMAL`
    /// with `PRIORITY_LOW`; others as before.
    public static func alert(token: String, title: String, body: String?, data: [(key: String, value: String)],
                             collapseId: String?, badge: Int64?, channelId: String, packageName: String?,
                             ttlSeconds: Int, level: AlertAttention.Level? = nil,
                             timeSensitiveChannelId: String? = nil) -> FCMMessage {
        var notification = JSONObject([("title", .string(title))])
        if let body { notification["body"] = .string(body) }
        let channel = level == .timeSensitive ? timeSensitiveChannelId ?? channelId : channelId
        var androidNotification = JSONObject([("channel_id", .string(channel))])
        if let collapseId { androidNotification["tag"] = .string(collapseId) }
        if let badge { androidNotification["notification_count"] = .integer(badge) }
        switch level {
        case .timeSensitive?: androidNotification["notification_priority"] = .string("PRIORITY_HIGH")
        case .passive?: androidNotification["notification_priority"] = .string("PRIORITY_LOW")
        default: break
        }
        var android = JSONObject([
            ("priority", .string(level == .passive ? "NORMAL" : "HIGH")), ("ttl", .string(ttl(ttlSeconds))),
            ("notification", .object(androidNotification)),
        ])
        if let packageName { android["restricted_package_name"] = .string(packageName) }
        var message = JSONObject([("token", .string(token)), ("notification", .object(notification))])
        if !data.isEmpty { message["data"] = .object(JSONObject(data.map { ($0.key, JSONValue.string($0.value)) })) }
        message["android"] = .object(android)
        return FCMMessage(token: token, message: message)
    }

    /// The dismissal of notifications answered elsewhere (docs/app-integration.md, "Dismissal"):
    /// a data message `{"dismiss_collapse_ids":"id1,id2"}`, `android.priority` `HIGH` so the app
    /// wakes to remove them, `restricted_package_name` when one is set. An id that holds `,`
    /// cannot be told apart in that list and is left out (its banner was replaced all the same).
    public static func dismissal(token: String, collapseIds: [String], packageName: String?, ttlSeconds: Int) -> FCMMessage {
        let listed = collapseIds.filter { !$0.contains(",") }
        var android = JSONObject([("priority", .string("HIGH")), ("ttl", .string(ttl(ttlSeconds)))])
        if let packageName { android["restricted_package_name"] = .string(packageName) }
        return FCMMessage(token: token, message: JSONObject([
            ("token", .string(token)),
            ("data", .object(JSONObject([("dismiss_collapse_ids", .string(listed.joined(separator: ",")))]))),
            ("android", .object(android)),
        ]))
    }

    /// `data` keys FCM refuses (400 `INVALID_ARGUMENT`): `from`, `message_type`, `collapse_key`,
    /// and any starting with `google.` or `gcm.`, told by their bytes as FCM does (Swift's
    /// hasPrefix compares whole characters, and `google.` then a combining mark is none of them).
    public static func isReservedDataKey(_ key: String) -> Bool {
        let bytes = key.utf8
        return ["from", "message_type", "collapse_key"].contains { bytes.elementsEqual($0.utf8) }
            || bytes.starts(with: "google.".utf8) || bytes.starts(with: "gcm.".utf8)
    }

    /// The longest `android.ttl` FCM accepts: 28 days (a longer one is refused with 400).
    public static let maxTTLSeconds = 2_419_200

    /// FCM's duration form, `"3600s"`, at most 28 days; `"0s"` delivers now or never.
    private static func ttl(_ seconds: Int) -> String { "\(min(seconds, maxTTLSeconds))s" }
}
