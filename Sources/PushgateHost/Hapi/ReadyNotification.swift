import PushgateCore

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
