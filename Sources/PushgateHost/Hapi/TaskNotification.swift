import PushgateCore

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
