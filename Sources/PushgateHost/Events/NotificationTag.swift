import PushgateCore

/// The tag of an event: its banner identity, `collapseId` and APNs `thread-id`.
///
/// - Important: protocol/host-api.md §3 — a tag over 64 UTF-8 bytes becomes `h-` + the first 40 hex
///   chars of its SHA-256: never cut mid-character, never empty.
public enum NotificationTag {
    /// The longest tag sent as is, in UTF-8 bytes.
    public static let maxBytes = 64

    /// The tag of `event`.
    public static func make(for event: HostEvent) -> String {
        let sid = event.sessionId
        switch event.type {
        case .ready: return bounded("ready-\(sid)")
        case .question: return bounded("question-\(sid)")
        case .permission: return bounded("permission-\(event.requestId.flatMap { $0.isEmpty ? nil : $0 } ?? sid)")
        case .goalComplete, .goalBlocked, .goalBudget: return bounded("goal-\(sid)")
        case .error: return bounded("error-\(sid)")
        case .taskComplete, .taskError: return bounded("task-\(sid)")
        case .update: return bounded("update-\(sid)")
        // Never pushed under: a resolution goes out under the tags of what it resolves.
        case .resolved: return bounded("resolved-\(sid)")
        }
    }

    /// `raw` when it fits, else its hashed form.
    public static func bounded(_ raw: String) -> String {
        guard raw.utf8.count > maxBytes else { return raw }
        return "h-" + String(Hex.encode(SHA256.hash(Array(raw.utf8))).prefix(40))
    }
}
