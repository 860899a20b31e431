import PushgateCore

/// A device's push-to-start token (iOS 17.2): what lets the host start an activity on a device
/// that shows none (docs/live-activities.md, "Starting by push"). One per device, named by the
/// app's `client`.
public struct LiveActivityStartToken: Sendable, Equatable {
    /// Hex push-to-start token, case preserved.
    public var token: String
    /// The phone app instance that registered it; only that client may replace or delete it.
    public var client: String
    /// `production` or `sandbox`.
    public var environment: String
    /// When a start to this device was last accepted (ms); the cooldown counts from it.
    public var lastStartedAtMs: Int64?
    /// The last registration by the phone; 30 days without one expire the token.
    public var lastSeenAtMs: Int64

    public init(token: String, client: String, environment: String = "production", lastStartedAtMs: Int64? = nil,
                lastSeenAtMs: Int64) {
        self.token = token
        self.client = client
        self.environment = environment
        self.lastStartedAtMs = lastStartedAtMs
        self.lastSeenAtMs = lastSeenAtMs
    }
}

/// The body of `POST /api/push/live-activity-token` with `kind:"start"`: `{kind, token, client,
/// environment?}`. `client` is required: it ties the token to the device whose activities the
/// host looks at before starting one.
public struct LiveActivityStartRegistration: Sendable, Equatable {
    /// The value of `kind` that marks a push-to-start token.
    static let kind = "start"

    public var token: String
    public var client: String
    public var environment: String

    public init(token: String, client: String, environment: String = "production") {
        self.token = token
        self.client = client
        self.environment = environment
    }

    public init(json: JSONValue) throws(WireFieldError) {
        let (reader, client) = try Self.read(json, members: ["environment"])
        let environment = try reader.optionalString("environment") ?? "production"
        guard environment == "production" || environment == "sandbox" else {
            throw WireFieldError(field: "environment", problem: "must be production or sandbox")
        }
        self.init(token: try TokenRequest.deviceToken(reader), client: client, environment: environment)
    }

    /// Reads a push-to-start body: `kind` `start`, the `client` (required) and nothing but those,
    /// `token` and `members`; the token is checked by the caller.
    static func read(_ json: JSONValue, members: Set<String>) throws(WireFieldError) -> (FieldReader, client: String) {
        let reader = try FieldReader(json, path: "")
        // `kind` first: an activity token's body with a stray `kind` is told about that member.
        guard try reader.string("kind") == kind else { throw WireFieldError(field: "kind", problem: "must be start") }
        try reader.requireOnly(members.union(["kind", "token", "client"]))
        guard let client = try LiveActivityRegistration.client(reader) else {
            throw WireFieldError(field: "client", problem: "is required for a push-to-start token")
        }
        return (reader, client)
    }

    /// Whether a body is for a push-to-start token: only those carry `kind` (any value but
    /// `start` is then refused).
    static func isStart(_ json: JSONValue) -> Bool { json["kind"] != nil }
}
