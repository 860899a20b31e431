/// Builds the JSON bodies of signed relay requests as a host sends them: the route's fields
/// plus `publicKeyJwk`, `ts` and `sig` over the route's signed message.
///
/// - Important: messages per protocol/signed-relay.md §1 and §5 (``SignedMessage``).
public struct RelayRequestSigner: Sendable {
    /// The host's signing key.
    public let key: P256PrivateKey

    public init(key: P256PrivateKey) { self.key = key }

    /// `POST /v1/push/register-token`; `platform` is `ios` (an APNs token) or `android` (an FCM token).
    public func registerToken(_ token: String, platform: String = "ios", ts: Int64) throws -> [UInt8] {
        try body([("token", .string(token)), ("platform", .string(platform))],
                 message: SignedMessage.registerToken(ts: ts, token: token, platform: platform), ts: ts)
    }

    /// `POST /v1/push/unregister-token`.
    public func unregisterToken(_ token: String, platform: String = "ios", ts: Int64) throws -> [UInt8] {
        try body([("token", .string(token)), ("platform", .string(platform))],
                 message: SignedMessage.unregisterToken(ts: ts, token: token, platform: platform), ts: ts)
    }

    /// `POST /v1/push/register-live-activity-token` and `unregister-live-activity-token` (same body).
    public func liveActivityToken(_ token: String, ts: Int64) throws -> [UInt8] {
        try body([("token", .string(token)), ("platform", "ios"), ("kind", "liveactivity")],
                 message: SignedMessage.liveActivityToken(ts: ts, token: token), ts: ts)
    }

    /// `register-live-activity-token` and `unregister-live-activity-token` of a push-to-start
    /// token (**extension**, same body for both): `kind` `start`.
    public func liveActivityStartToken(_ token: String, ts: Int64) throws -> [UInt8] {
        try body([("token", .string(token)), ("platform", "ios"), ("kind", "start")],
                 message: SignedMessage.liveActivityStartToken(ts: ts, token: token), ts: ts)
    }

    /// `POST /v1/push/send`. `body`, `badge`, `collapseId`, `env`, `data` and the attention
    /// extension fields (``AlertAttention/sendFields``) are not signed.
    public func send(tokens: [String], title: String, body text: String? = nil, badge: Int64? = nil,
                     collapseId: String? = nil, environment: String? = nil,
                     data: [(key: String, value: String)] = [], attention: AlertAttention = .none, ts: Int64) throws -> [UInt8] {
        var fields: [(String, JSONValue)] = [("tokens", .array(tokens.map(JSONValue.string))), ("title", .string(title))]
        if let text { fields.append(("body", .string(text))) }
        if let badge { fields.append(("badge", .integer(badge))) }
        if let collapseId { fields.append(("collapseId", .string(collapseId))) }
        if let environment { fields.append(("env", .string(environment))) }
        if !data.isEmpty { fields.append(("data", .object(JSONObject(data.map { ($0.key, JSONValue.string($0.value)) })))) }
        fields += attention.sendFields
        return try body(fields, message: SignedMessage.send(ts: ts, tokens: tokens, title: title), ts: ts)
    }

    /// `POST /v1/push/background` (**extension**): a silent push that tells the app to remove the
    /// notifications of `collapseIds`. `collapseIds` and `env` are not signed.
    public func background(tokens: [String], collapseIds: [String], environment: String? = nil, ts: Int64) throws -> [UInt8] {
        var fields: [(String, JSONValue)] = [("tokens", .array(tokens.map(JSONValue.string))),
                                             ("collapseIds", .array(collapseIds.map(JSONValue.string)))]
        if let environment { fields.append(("env", .string(environment))) }
        return try body(fields, message: SignedMessage.background(ts: ts, tokens: tokens), ts: ts)
    }

    /// `POST /v1/push/live-activity`; `priority` (5 or 10) is the unsigned Pushgate extension, and
    /// so is `start`, which a push whose event is `start` carries (its members are not signed).
    public func liveActivity(_ push: LiveActivityPush, start: LiveActivityStart? = nil, environment: String? = nil,
                             priority: Int? = nil, ts: Int64) throws -> [UInt8] {
        var fields: [(String, JSONValue)] = push.json.members.map { ($0.key, $0.value) }
        if let start { fields += start.requestMembers }
        if let environment { fields.append(("env", .string(environment))) }
        if let priority { fields.append(("priority", .integer(Int64(priority)))) }
        return try body(fields, message: push.signedMessage(ts: ts), ts: ts)
    }

    private func body(_ fields: [(String, JSONValue)], message: String, ts: Int64) throws -> [UInt8] {
        let signature = try key.sign(Array(message.utf8))
        var object = JSONObject(fields)
        object["publicKeyJwk"] = .object(key.publicKey.jwk)
        object["ts"] = .integer(ts)
        object["sig"] = .string(Base64URL.encode(signature))
        return JSONValue.object(object).serializedBytes()
    }
}
