/// The state a Live Activity shows, for the whole activity or one of its items.
///
/// - Important: relay-protocol.md §5 — any other status is refused (400).
public enum LiveActivityStatus: String, Sendable, CaseIterable {
    case working, tool, retry, input, permission, stale, complete, error
}

/// What a Live Activity push does to the activity.
///
/// - Important: relay-protocol.md §5 — `start` (push-to-start) is out of scope for v1 and
///   refused like any other value.
public enum LiveActivityEvent: String, Sendable, CaseIterable {
    case update, end
}
