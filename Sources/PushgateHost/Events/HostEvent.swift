import PushgateCore

/// One event from the agent hub (`POST /api/events`).
///
/// `title`, `body`, `notifySummary` and `severity` are accepted but never cross the
/// content-free path (protocol/host-api.md §5). `agent`, `agentText`, `pendingRequests` and `task` feed the
/// encrypted path's real text (protocol/hapi-push.md §9).
public struct HostEvent: Sendable, Equatable {
    /// The hub's `eventId`, or one the host made (``EventId``).
    public var eventId: String
    public var type: EventType
    public var sessionId: String
    public var sessionName: String?
    public var requestId: String?
    public var parentSessionId: String?
    public var system: Bool
    public var taskName: String?
    /// The agent's display label (`Claude`, `Codex`, …); nil → `Agent`.
    public var agent: String?
    /// The newest agent message's text; nil when the hub has none.
    public var agentText: String?
    /// The session's pending requests in the order they were added; nil when the event carries no list.
    public var pendingRequests: [PendingRequest]?
    /// The finished task (`task_complete`, `task_error`).
    public var task: TaskReport?

    public init(type: EventType, sessionId: String, eventId: String = EventId.make(), sessionName: String? = nil,
                requestId: String? = nil, parentSessionId: String? = nil, system: Bool = false, taskName: String? = nil,
                agent: String? = nil, agentText: String? = nil, pendingRequests: [PendingRequest]? = nil, task: TaskReport? = nil) {
        self.eventId = eventId
        self.type = type
        self.sessionId = sessionId
        self.sessionName = sessionName
        self.requestId = requestId
        self.parentSessionId = parentSessionId
        self.system = system
        self.taskName = taskName
        self.agent = agent
        self.agentText = agentText
        self.pendingRequests = pendingRequests
        self.task = task
    }

    /// Reads an event body strictly: known members only, with the right types.
    public init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["eventId", "type", "sessionId", "sessionName", "requestId", "title", "body", "notifySummary",
                                "severity", "parentSessionId", "system", "taskName", "agent", "agentText", "pendingRequests", "task"])
        type = EventType(wire: try reader.string("type"))
        sessionId = try reader.string("sessionId")
        guard !sessionId.isEmpty, sessionId.utf8.count <= 256 else {
            throw WireFieldError(field: "sessionId", problem: "must be 1 to 256 bytes")
        }
        if let text = try reader.optionalString("eventId") { eventId = try EventId.validated(text) } else { eventId = EventId.make() }
        sessionName = try reader.optionalString("sessionName")
        // An empty request id is none, for every use of it (tags, data, dismissal).
        requestId = try reader.optionalString("requestId").flatMap { $0.isEmpty ? nil : $0 }
        parentSessionId = try Self.optionalNullableString(reader, "parentSessionId")
        taskName = try reader.optionalString("taskName")
        for key in ["title", "body", "notifySummary", "severity"] { _ = try Self.optionalNullableString(reader, key) }
        agent = try Self.optionalNullableString(reader, "agent")
        agentText = try Self.optionalNullableString(reader, "agentText")
        if reader.object["pendingRequests"] == .null {
            pendingRequests = nil
        } else if let list = try reader.optionalArray("pendingRequests") {
            var requests: [PendingRequest] = []
            for (index, element) in list.enumerated() {
                requests.append(try PendingRequest(json: element, path: "pendingRequests[\(index)]"))
            }
            pendingRequests = requests
        }
        if let value = reader.object["task"], value != .null { task = try TaskReport(json: value) }
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
