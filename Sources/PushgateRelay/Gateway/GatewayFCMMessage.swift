import PushgateCore
import PushgateProviders

/// The FCM v1 message of one gateway delivery to an Android registration.
///
/// - Important: protocol/gateway.md §7.2 — high priority, `ttl` `14400s`, `collapse_key` = the first
///   32 hex chars of SHA-256(collapse id), `tag` = the collapse id, `data` = the `orca` object
///   with every value a string and a null `agentState` left out.
enum GatewayFCMMessage {
    static let ttl = "14400s"

    /// The `message` object for `projects/<id>/messages:send`.
    static func message(_ delivery: GatewayDelivery, token: String, channelId: String) -> JSONObject {
        let androidNotification = JSONObject([("channel_id", .string(channelId)), ("tag", .string(delivery.collapseId))])
        let android = JSONObject([
            ("priority", "HIGH"), ("ttl", .string(ttl)), ("collapse_key", .string(collapseKey(delivery.collapseId))),
            ("notification", .object(androidNotification)),
        ])
        return JSONObject([
            ("token", .string(token)),
            ("notification", .object(JSONObject([("title", .string(delivery.title)), ("body", .string(delivery.body))]))),
            ("android", .object(android)),
            ("data", .object(data(delivery.orca))),
        ])
    }

    /// Lowercase hex of the first 16 bytes of SHA-256 over the collapse id's UTF-8: hashed, not
    /// cut, so two long ids sharing a prefix never merge.
    static func collapseKey(_ collapseId: String) -> String {
        String(Hex.encode(SHA256.hash(Array(collapseId.utf8))).prefix(32))
    }

    /// The `orca` object with string values (numbers in decimal) and nulls left out.
    static func data(_ orca: JSONObject) -> JSONObject {
        JSONObject(orca.members.compactMap { member -> (String, JSONValue)? in
            switch member.value {
            case .string: (member.key, member.value)
            case .integer(let number): (member.key, .string(String(number)))
            default: nil
            }
        })
    }

    /// The FCM request of a delivery to `token`.
    static func fcmMessage(_ delivery: GatewayDelivery, token: String, channelId: String) -> FCMMessage {
        FCMMessage(token: token, messageObject: message(delivery, token: token, channelId: channelId))
    }
}
