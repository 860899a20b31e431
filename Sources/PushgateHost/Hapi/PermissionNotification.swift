import PushgateCore

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
