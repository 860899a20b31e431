import PushgateCore

/// Turns a host event into the readable payload of the encrypted path, or `nil` when the
/// event has no hapi notification.
///
/// - Important: protocol/hapi-push.md §9 — `ready` → `ready`; `permission` / `question` → the first
///   pending request as `permission-request` or `input-request` (nothing when none is
///   pending, Pushgate decision); `task_complete` / `task_error` with a summary →
///   `task-notification`. Other event types have no hapi counterpart.
public enum HapiComposer {
    /// The payload of `event`, or nil when it has no hapi notification (or nothing is pending).
    public static func payload(for event: HostEvent) -> HapiPayload? {
        let session = HapiSession(event: event)
        switch event.type {
        case .ready:
            return ReadyNotification.payload(session: session, agentText: event.agentText)
        case .permission, .question:
            guard let request = firstRequest(of: event) else { return nil }
            if InputRequestNotification.isQuestionTool(request.tool) {
                return InputRequestNotification.payload(session: session, request: request)
            }
            return PermissionNotification.payload(session: session, request: request)
        case .taskComplete, .taskError:
            guard let task = event.task else { return nil }
            let status = task.status ?? (event.type == .taskError ? "error" : nil)
            return TaskNotification.payload(session: session, summary: task.summary, status: status)
        case .error, .goalComplete, .goalBlocked, .goalBudget, .update, .resolved:
            return nil
        }
    }

    /// The request to notify: the first of `pendingRequests`; without a list, the event's own
    /// `requestId` (a `question` needs none: it becomes an input request without questions).
    static func firstRequest(of event: HostEvent) -> PendingRequest? {
        if let list = event.pendingRequests { return list.first }
        if let id = event.requestId, !id.isEmpty {
            return PendingRequest(id: id, tool: event.type == .question ? InputRequestNotification.questionTools[0] : nil)
        }
        return event.type == .question ? PendingRequest(id: "", tool: InputRequestNotification.questionTools[0]) : nil
    }
}

/// The session labels every payload uses.
///
/// - Important: protocol/hapi-push.md §9 helpers — `sessionName` is the first non-empty of the name and
///   the first 8 characters of the id (the host gets no summary or path); `agent` falls back to
///   `Agent`; `url` is `/sessions/<sessionId>`.
struct HapiSession {
    var id: String
    var name: String
    var agent: String
    var url: String { "/sessions/\(id)" }

    init(event: HostEvent) {
        id = event.sessionId
        let name = HapiText.trim(event.sessionName ?? "")
        self.name = name.isEmpty ? String(event.sessionId.prefix(8)) : name
        let agent = HapiText.trim(event.agent ?? "")
        self.agent = agent.isEmpty ? "Agent" : agent
    }
}
