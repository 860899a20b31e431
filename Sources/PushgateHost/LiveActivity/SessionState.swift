import PushgateCore

/// What the hub last said about one session (`PUT /api/sessions/:id/state`).
///
/// - Important: protocol/host-api.md §2 and §6 — `idle`/`error` of a top-level session (no parent, not a
///   system session) settles its Live Activity rows at once; the refresh engine reads every
///   state on each tick.
public struct SessionState: Sendable, Equatable {
    /// The hub's status of a session.
    public enum Status: String, Sendable, CaseIterable {
        case busy, retry, idle, error

        /// The row status a settled session shows (`idle` → `complete`, `error` → `error`); nil while it works.
        public var settledRowStatus: LiveActivityStatus? {
            switch self {
            case .idle: .complete
            case .error: .error
            case .busy, .retry: nil
            }
        }
    }

    public var status: Status
    /// The session's title; replaces a row's title when given (cut to 80 UTF-16 code units).
    public var title: String?
    /// Whether the session is listed in the hub's sidebar; only visible sessions are added to activities.
    public var visible: Bool
    public var parentId: String?
    public var system: Bool
    /// When the host first heard of the session (ms); orders the rows the refresh engine adds.
    public var firstSeenMs: Int64
    /// When the state last changed (ms); settled states are forgotten a day later.
    public var updatedAtMs: Int64

    public init(status: Status, title: String? = nil, visible: Bool = false, parentId: String? = nil, system: Bool = false,
                firstSeenMs: Int64 = 0, updatedAtMs: Int64 = 0) {
        self.status = status
        self.title = title
        self.visible = visible
        self.parentId = parentId
        self.system = system
        self.firstSeenMs = firstSeenMs
        self.updatedAtMs = updatedAtMs
    }

    /// Neither a child session nor a system session.
    public var isTopLevel: Bool { parentId == nil && !system }
}

/// The body of `PUT /api/sessions/:id/state`, validated.
public struct SessionStateUpdate: Sendable, Equatable {
    public var sessionId: String
    public var state: SessionState
    /// The least `eventVersion` of the push an `idle` or `error` state causes (Pushgate extension).
    public var eventVersion: Int64?

    public init(sessionId: String, state: SessionState, eventVersion: Int64? = nil) {
        self.sessionId = sessionId
        self.state = state
        self.eventVersion = eventVersion
    }

    /// Reads `{status, title?, visible?, parentId?, system?, eventVersion?}` strictly; `nowMs` stamps the state.
    public init(sessionId: String, json: JSONValue, nowMs: Int64) throws(WireFieldError) {
        guard LiveActivityItem.sessionIDLength.contains(sessionId.utf16.count) else {
            throw WireFieldError(field: "sessionId", problem: "must be 1 to 128 characters")
        }
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["status", "title", "visible", "parentId", "system", "eventVersion"])
        guard let status = SessionState.Status(rawValue: try reader.string("status")) else {
            throw WireFieldError(field: "status", problem: "must be busy, retry, idle or error")
        }
        let title = try reader.nullableString("title")
        if let title, title.utf8.count > 1_024 { throw WireFieldError(field: "title", problem: "must be at most 1024 bytes") }
        let eventVersion = try reader.optionalInteger("eventVersion")
        if let eventVersion, eventVersion < 0 { throw WireFieldError(field: "eventVersion", problem: "must not be negative") }
        self.init(sessionId: sessionId,
                  state: SessionState(status: status, title: title, visible: try reader.nullableBool("visible") ?? false,
                                      parentId: try reader.nullableString("parentId"), system: try reader.nullableBool("system") ?? false,
                                      firstSeenMs: nowMs, updatedAtMs: nowMs),
                  eventVersion: eventVersion)
    }
}

extension FieldReader {
    /// A string member that may also be `null` or empty, both read as absent.
    func nullableString(_ key: String) throws(WireFieldError) -> String? {
        if object[key] == .null { return nil }
        guard let text = try optionalString(key) else { return nil }
        return text.isEmpty ? nil : text
    }

    /// A boolean member that may also be `null` (absent).
    func nullableBool(_ key: String) throws(WireFieldError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw WireFieldError(field: name(key), problem: "must be a boolean")
        }
    }
}
