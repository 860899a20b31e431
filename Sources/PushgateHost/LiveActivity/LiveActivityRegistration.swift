import PushgateCore

/// The body of `POST /api/push/live-activity-token`, validated.
///
/// - Important: protocol/host-api.md §2 and §6 — `{token, activityId, sessionId, items?, client?}`; Pushgate
///   also takes `environment` (`production`, the default, or `sandbox`), as for alert tokens.
public struct LiveActivityRegistration: Sendable, Equatable {
    /// The longest activity id, in UTF-16 code units.
    static let maxActivityIdLength = 128

    public var token: String
    public var activityId: String
    public var sessionId: String
    /// The rows the phone shows now; nil keeps what the host has.
    public var rows: [LiveActivityItem]?
    public var client: String?
    public var environment: String

    public init(token: String, activityId: String, sessionId: String, rows: [LiveActivityItem]? = nil, client: String? = nil,
                environment: String = "production") {
        self.token = token
        self.activityId = activityId
        self.sessionId = sessionId
        self.rows = rows
        self.client = client
        self.environment = environment
    }

    public init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["token", "activityId", "sessionId", "items", "client", "environment"])
        let token = try TokenRequest.deviceToken(reader)
        let activityId = try reader.string("activityId")
        guard (1...Self.maxActivityIdLength).contains(activityId.utf16.count) else {
            throw WireFieldError(field: "activityId", problem: "must be 1 to 128 characters")
        }
        let sessionId = try reader.string("sessionId")
        guard LiveActivityItem.sessionIDLength.contains(sessionId.utf16.count) else {
            throw WireFieldError(field: "sessionId", problem: "must be 1 to 128 characters")
        }
        let environment = try reader.optionalString("environment") ?? "production"
        guard environment == "production" || environment == "sandbox" else {
            throw WireFieldError(field: "environment", problem: "must be production or sandbox")
        }
        self.init(token: token, activityId: activityId, sessionId: sessionId,
                  rows: try reader.object["items"].map { value throws(WireFieldError) in
                      try LiveActivitySnapshot.rows(from: value, field: "items")
                  },
                  client: try Self.client(reader), environment: environment)
    }

    /// `client`: at most 256 bytes; empty means none.
    static func client(_ reader: FieldReader) throws(WireFieldError) -> String? {
        guard let client = try reader.nullableString("client") else { return nil }
        guard client.utf8.count <= 256 else { throw WireFieldError(field: "client", problem: "must be at most 256 bytes") }
        return client
    }
}

/// The body of `DELETE /api/push/live-activity-token`: `{token}` or `{activityId}`, with the
/// `client`; or `{kind:"start", token, client}` for a push-to-start token.
public enum LiveActivityRemoval: Sendable, Equatable {
    case token(String, client: String?)
    case activity(String, client: String?)
    case startToken(String, client: String)

    public init(json: JSONValue) throws(WireFieldError) {
        if LiveActivityStartRegistration.isStart(json) {
            let (reader, client) = try LiveActivityStartRegistration.read(json, members: [])
            self = .startToken(try TokenRequest.deviceToken(reader), client: client)
            return
        }
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["token", "activityId", "client"])
        let client = try LiveActivityRegistration.client(reader)
        switch (reader.has("token"), reader.has("activityId")) {
        case (true, false): self = .token(try TokenRequest.deviceToken(reader), client: client)
        case (false, true): self = .activity(try reader.string("activityId"), client: client)
        case (true, true): throw WireFieldError(field: "activityId", problem: "must not appear together with token")
        case (false, false): throw WireFieldError(field: "token", problem: "is required (or activityId)")
        }
    }
}
