import PushgateCore
import PushgateProviders

/// A `POST /v1/push/send` request, validated.
///
/// - Important: docs/relay.md "Signed requests" — only `ts`, the sorted tokens and `title` are
///   signed; `body`, `badge`, `data`, `collapseId`, `env` and the attention fields
///   (docs/relay.md "Attention") are not. Unknown top-level fields are ignored.
struct SendRequest {
    let tokens: [String]
    let title: String
    let body: String?
    let badge: Int64?
    let collapseId: String?
    let environment: APNsEnvironment
    let data: [(key: String, value: String)]
    let attention: AlertAttention
    let proof: SignedProof

    init(_ fields: FieldReader, keys: PublicKeyCache) throws(RelayError) {
        tokens = try DeviceToken.list(fields, android: true)
        title = try fields.relay({ try $0.string("title") })
        guard !title.isEmpty, title.utf8.count <= 256 else { throw .invalidRequest }
        body = try fields.relay({ try $0.optionalString("body") })
        guard (body?.utf8.count ?? 0) <= 1_024 else { throw .invalidRequest }
        badge = try fields.relay({ try $0.optionalInteger("badge") })
        guard (badge ?? 0) >= 0 else { throw .invalidRequest }
        collapseId = try fields.relay({ try $0.optionalString("collapseId") })
        if let collapseId, collapseId.isEmpty || collapseId.utf8.count > 64 { throw .invalidRequest }
        environment = try APNsEnvironment.from(fields)
        data = try fields.has("data") ? Self.data(fields.relayObject("data")) : []
        attention = try AlertAttention(sendFields: fields)
        proof = try SignedProof(fields, keys: keys)
    }

    /// The string the host signed.
    var signedMessage: String { SignedMessage.send(ts: proof.timestampMs, tokens: tokens, title: title) }

    /// Whether the signed message `ts.tokens.title` is also another route's message: it ends with
    /// `.` and a register-family suffix or `background`. The suffix may begin in the title or in
    /// the last token (an FCM token may contain `.`), so the whole message is looked at. Such a
    /// send is refused (docs/security.md, M3).
    var signsAnotherRoutesMessage: Bool {
        let message = signedMessage
        return Self.otherRoutesSuffixes.contains { message.hasSuffix("." + $0) }
    }

    /// The endings of every other message of the form `ts.tokens.` + suffix.
    static let otherRoutesSuffixes = RegisterRequest.signedSuffixes + [BackgroundRequest.signedSuffix]

    /// `data`: at most 16 string entries, keys non-empty and not `aps` nor one FCM reserves (the
    /// same map goes to Android tokens), key ≤ 64 bytes, value ≤ 256 bytes, keys and values ≤
    /// 2048 bytes in all.
    private static func data(_ object: JSONObject) throws(RelayError) -> [(key: String, value: String)] {
        guard object.count <= 16 else { throw .invalidRequest }
        var total = 0
        var entries: [(key: String, value: String)] = []
        for (key, value) in object.members {
            guard let text = value.stringValue, !key.isEmpty, key != "aps", !FCMMessage.isReservedDataKey(key),
                  key.utf8.count <= 64, text.utf8.count <= 256 else { throw .invalidRequest }
            total += key.utf8.count + text.utf8.count
            entries.append((key, text))
        }
        guard total <= 2_048 else { throw .invalidRequest }
        return entries
    }
}

extension AlertAttention {
    /// The unsigned attention fields of a `send` (**extension**, docs/relay.md "Attention"):
    /// `interruptionLevel` passive, active or time-sensitive (never `critical`), `relevanceScore`
    /// a number from 0 to 1, `category` an identifier; any other value or type → `invalid_request`.
    init(sendFields fields: FieldReader) throws(RelayError) {
        var level: Level?
        if let raw = try fields.relay({ try $0.optionalString("interruptionLevel") }) {
            guard let known = Level(rawValue: raw) else { throw .invalidRequest }
            level = known
        }
        let relevance = try fields.relay({ try $0.optionalNumber("relevanceScore") })
        if let relevance, !Self.isValidRelevance(relevance) { throw .invalidRequest }
        let category = try fields.relay({ try $0.optionalString("category") })
        if let category, !Self.isValidCategory(category) { throw .invalidRequest }
        self.init(level: level, relevance: relevance, category: category)
    }
}
