import PushgateCore

/// One event from the agent hub (`POST /api/events`).
///
/// `title`, `body`, `notifySummary` and `severity` are accepted but never cross the
/// content-free path (host.md §5).
public struct HostEvent: Sendable, Equatable {
    public var type: EventType
    public var sessionId: String
    public var sessionName: String?
    public var requestId: String?
    public var parentSessionId: String?
    public var system: Bool
    public var taskName: String?

    public init(type: EventType, sessionId: String, sessionName: String? = nil, requestId: String? = nil,
                parentSessionId: String? = nil, system: Bool = false, taskName: String? = nil) {
        self.type = type
        self.sessionId = sessionId
        self.sessionName = sessionName
        self.requestId = requestId
        self.parentSessionId = parentSessionId
        self.system = system
        self.taskName = taskName
    }

    /// Reads an event body strictly: known members only, with the right types.
    public init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["type", "sessionId", "sessionName", "requestId", "title", "body", "notifySummary",
                                "severity", "parentSessionId", "system", "taskName"])
        type = EventType(wire: try reader.string("type"))
        sessionId = try reader.string("sessionId")
        guard !sessionId.isEmpty, sessionId.utf8.count <= 256 else {
            throw WireFieldError(field: "sessionId", problem: "must be 1 to 256 bytes")
        }
        sessionName = try reader.optionalString("sessionName")
        requestId = try reader.optionalString("requestId")
        parentSessionId = try Self.optionalNullableString(reader, "parentSessionId")
        taskName = try reader.optionalString("taskName")
        for key in ["title", "body", "notifySummary", "severity"] { _ = try Self.optionalNullableString(reader, key) }
        switch reader.object["system"] {
        case nil, .null?: system = false
        case .bool(let flag)?: system = flag
        default: throw WireFieldError(field: "system", problem: "must be a boolean")
        }
    }

    private static func optionalNullableString(_ reader: FieldReader, _ key: String) throws(WireFieldError) -> String? {
        if reader.object[key] == .null { return nil }
        guard let text = try reader.optionalString(key) else { return nil }
        return text.isEmpty ? nil : text
    }
}
