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

/// The `task-notification` payload: a background task of the agent finished.
///
/// - Important: protocol/hapi-push.md §9 (`task-notification`) — failed when the status is `failed`,
///   `error`, `killed` or `aborted` (any case); body `<agent> · <sessionName> · <summary>`;
///   no cooldown and no request id.
enum TaskNotification {
    static let failedStatuses: Set<String> = ["failed", "error", "killed", "aborted"]

    /// `nil` when the trimmed summary is empty.
    static func payload(session: HapiSession, summary: String, status: String?) -> HapiPayload? {
        guard !HapiText.trim(summary).isEmpty else { return nil }
        let failed = status.map { failedStatuses.contains(HapiText.trim($0).lowercased()) } ?? false
        return HapiPayload(type: .taskNotification, sessionId: session.id, sessionName: session.name, url: session.url,
                           title: failed ? "Task failed" : "Task completed",
                           body: "\(session.agent) \u{00B7} \(session.name) \u{00B7} \(HapiText.clip(summary, 280))",
                           severity: failed ? .error : .success)
    }
}

/// The `permission-request` payload: the agent waits for approval of a tool call.
///
/// - Important: protocol/hapi-push.md §9 (`permission-request`) — title `Permission Request`, severity
///   `warning`, the request id; body = glance line, `Session: <name>` when it differs, and the
///   detailed description, joined by `\n`, with no overall limit (§4 protects the envelope).
enum PermissionNotification {
    static func payload(session: HapiSession, request: PendingRequest) -> HapiPayload {
        var lines: [String] = []
        let glance: String
        var detailed = ""
        if let tool = request.tool, !tool.isEmpty {
            let summary = ToolCallSummary(tool: tool, arguments: request.arguments)
            glance = summary.compact.isEmpty ? "\(session.agent) \(tool)" : "\(session.agent) \(tool): \(summary.compact)"
            detailed = summary.detailed
        } else {
            glance = "\(session.agent) - \(session.name)"
        }
        lines.append(glance)
        if !session.name.isEmpty && session.name != glance { lines.append("Session: \(session.name)") }
        if !detailed.isEmpty { lines.append(detailed) }
        return HapiPayload(type: .permissionRequest, sessionId: session.id, sessionName: session.name, url: session.url,
                           requestId: request.id, title: "Permission Request", body: lines.joined(separator: "\n"),
                           severity: .warning)
    }
}

/// The `ready` payload: the agent finished its turn and waits for input.
///
/// - Important: protocol/hapi-push.md §9 (`ready`) — no agent text → `Ready for input`; a footer with a
///   summary → title `<agent> - <sessionName>`, body summary line and `-> action` line, and
///   `notifySummary`; other text → the clipped text. Severity `info`.
enum ReadyNotification {
    /// The longest body line, in UTF-16 code units.
    static let bodyLimit = 280

    static func payload(session: HapiSession, agentText: String?) -> HapiPayload {
        var payload = HapiPayload(type: .ready, sessionId: session.id, sessionName: session.name, url: session.url,
                                  title: "Ready for input", body: "\(session.agent) is waiting in \(session.name)",
                                  severity: .info)
        guard let text = agentText, !HapiText.isBlank(text) else { return payload }
        payload.title = "\(session.agent) - \(session.name)"
        if let footer = AgentNotifySummary(text: text), let summary = footer.summary, !summary.isEmpty {
            let summaryLine = HapiText.clip(summary, bodyLimit)
            var actionLine = ""
            if let action = footer.action, !action.isEmpty, action != summary {
                actionLine = HapiText.clip("-> " + action, max(0, bodyLimit - HapiText.len16(summaryLine) - 1))
            }
            payload.body = [summaryLine, actionLine].filter { !$0.isEmpty }.joined(separator: "\n")
            payload.notifySummary = footer.notifySummary(summaryLine: summaryLine)
        } else {
            payload.body = HapiText.clip(text, bodyLimit)
        }
        return payload
    }
}

/// The `input-request` payload: the agent asks the user a question.
///
/// - Important: protocol/hapi-push.md §9 (input-request variant) — for the question tools only (one
///   leading `functions.` removed); title `<agent> needs your input`, severity `info`, the
///   request id for correlation only; body within 280 scalars including the session line.
enum InputRequestNotification {
    /// The tools whose requests are questions, without the optional `functions.` prefix.
    static let questionTools = ["request_user_input", "AskUserQuestion", "ask_user_question", "CursorAskQuestion"]
    /// The body's budget in Unicode scalars.
    static let budget = 280
    static let noQuestion = "Open the session to view and answer the question."

    static func isQuestionTool(_ tool: String?) -> Bool {
        guard var name = tool else { return false }
        if name.hasPrefix("functions.") { name.removeFirst("functions.".count) }
        return questionTools.contains(name)
    }

    static func payload(session: HapiSession, request: PendingRequest) -> HapiPayload {
        let sessionName = HapiText.clipQ(HapiText.oneLine(session.name), 80)
        let context = sessionName.isEmpty ? "" : "\n" + sessionName
        let budget = Self.budget - HapiText.scalars(context)
        let questions = (request.arguments?["questions"]?.arrayValue ?? []).compactMap { element -> String? in
            guard let object = element.objectValue else { return nil }
            let question = HapiText.oneLine(object["question"]?.stringValue ?? "")
            let line = question.isEmpty ? HapiText.oneLine(object["header"]?.stringValue ?? "") : question
            return line.isEmpty ? nil : line
        }
        let remaining = questions.count - 1
        let suffix = remaining > 0 ? "\n+\(remaining) more question" + (remaining == 1 ? "" : "s") : ""
        let first = HapiText.clipQ(questions.first ?? noQuestion, max(0, budget - HapiText.scalars(suffix)))
        return HapiPayload(type: .inputRequest, sessionId: session.id, sessionName: sessionName, url: session.url,
                           requestId: request.id, title: "\(session.agent) needs your input",
                           body: HapiText.clipQ(first + suffix, budget) + context, severity: .info)
    }
}
