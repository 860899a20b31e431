import PushgateCore

/// One request a session waits on (a tool call to approve, or a question), as the hub lists it
/// in `pendingRequests`, in the order the requests were added.
///
/// - Important: protocol/hapi-push.md §9 (`permission-request`) — the first request of the list is the
///   one notified; its tool decides between `permission-request` and `input-request`.
public struct PendingRequest: Sendable, Equatable {
    public var id: String
    /// The tool name, e.g. `Bash` or `AskUserQuestion`; nil when the request has none.
    public var tool: String?
    /// The tool call's arguments as received (member order kept).
    public var arguments: JSONValue?

    public init(id: String, tool: String? = nil, arguments: JSONValue? = nil) {
        self.id = id
        self.tool = tool
        self.arguments = arguments
    }

    /// Reads `pendingRequests[index]`: `{id, tool?, arguments?}`, `id` a non-empty string.
    init(json: JSONValue, path: String) throws(WireFieldError) {
        let reader = try FieldReader(json, path: path)
        try reader.requireOnly(["id", "tool", "arguments"])
        id = try reader.string("id")
        guard !id.isEmpty, id.utf8.count <= 256 else { throw WireFieldError(field: reader.name("id"), problem: "must be 1 to 256 bytes") }
        tool = reader.object["tool"] == .null ? nil : try reader.optionalString("tool")
        arguments = reader.object["arguments"]
    }
}

/// A finished background task of the agent (`task` on `task_complete` / `task_error`).
///
/// - Important: protocol/hapi-push.md §9 (`task-notification`) — sent only with a non-empty trimmed summary.
public struct TaskReport: Sendable, Equatable {
    public var summary: String
    /// The task's status, e.g. `completed`, `failed`, `killed`; nil when the hub gave none.
    public var status: String?

    public init(summary: String, status: String? = nil) {
        self.summary = summary
        self.status = status
    }

    /// Reads `task`: `{summary, status?}`.
    init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "task")
        try reader.requireOnly(["summary", "status"])
        summary = try reader.string("summary")
        status = reader.object["status"] == .null ? nil : try reader.optionalString("status")
    }
}
