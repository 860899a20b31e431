/// The signed part of a `POST /v1/push/live-activity` request: tokens, event, content state
/// and the optional dismissal and stale dates (seconds since the epoch).
///
/// - Important: protocol/signed-relay.md §5 — `end` requires `contentState.endedAt`; a `start`
///   (extension) names exactly one push-to-start token, and what only a start carries (its
///   attributes and alert, ``LiveActivityStart``) is not signed, so not here. Token format,
///   `env`, `priority` and the signature members are checked by the relay, not here.
public struct LiveActivityPush: Sendable, Equatable {
    /// How many tokens one request may name.
    public static let tokenCount = 1...100

    public let tokens: [String]
    public let event: LiveActivityEvent
    public let contentState: LiveActivityContentState
    public let dismissalDate: Int64?
    public let staleDate: Int64?

    /// A push from its parts; throws when `event` is `end` without `contentState.endedAt`, the
    /// token count is outside ``tokenCount``, or a `start` names more than one token.
    public init(tokens: [String], event: LiveActivityEvent, contentState: LiveActivityContentState,
                dismissalDate: Int64? = nil, staleDate: Int64? = nil) throws(WireFieldError) {
        guard Self.tokenCount.contains(tokens.count) else {
            throw WireFieldError(field: "tokens", problem: "must hold 1 to 100 tokens")
        }
        // The relay counts starts per push-to-start token (docs/relay.md "Live Activity"): one each.
        if event == .start && tokens.count != 1 {
            throw WireFieldError(field: "tokens", problem: "must hold exactly 1 token when event is start")
        }
        if event == .end && contentState.endedAt == nil {
            throw WireFieldError(field: "contentState.endedAt", problem: "is required when event is end")
        }
        self.tokens = tokens
        self.event = event
        self.contentState = contentState
        self.dismissalDate = dismissalDate
        self.staleDate = staleDate
    }

    /// Reads those members of a request body; other members are left to the caller.
    public init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        guard let tokenValues = try reader.optionalArray("tokens") else {
            throw WireFieldError(field: "tokens", problem: "is required")
        }
        var tokens: [String] = []
        for value in tokenValues {
            guard let token = value.stringValue else { throw WireFieldError(field: "tokens", problem: "must hold strings") }
            tokens.append(token)
        }
        guard let event = LiveActivityEvent(rawValue: try reader.string("event")) else {
            throw WireFieldError(field: "event", problem: "must be update, end or start")
        }
        guard let contentState = reader.object["contentState"] else {
            throw WireFieldError(field: "contentState", problem: "is required")
        }
        try self.init(tokens: tokens, event: event, contentState: LiveActivityContentState(json: contentState),
                      dismissalDate: reader.optionalInteger("dismissalDate"), staleDate: reader.optionalInteger("staleDate"))
    }

    /// The members ``init(json:)`` reads, as a request body carries them.
    public var json: JSONObject {
        var object = JSONObject([
            ("tokens", .array(tokens.map(JSONValue.string))), ("event", .string(event.rawValue)), ("contentState", .object(contentState.json)),
        ])
        if let dismissalDate { object["dismissalDate"] = .integer(dismissalDate) }
        if let staleDate { object["staleDate"] = .integer(staleDate) }
        return object
    }

    /// The message the host signs with timestamp `ts` (milliseconds).
    public func signedMessage(ts: Int64) -> String {
        SignedMessage.liveActivity(ts: ts, push: self)
    }
}
