/// The state a Live Activity shows, for the whole activity or one of its items.
///
/// - Important: protocol/signed-relay.md §5 — any other status is refused (400).
public enum LiveActivityStatus: String, Sendable, CaseIterable {
    case working, tool, retry, input, permission, stale, complete, error
}

/// What a Live Activity push does to the activity.
///
/// - Important: `update` and `end` are OpenChamber's; `start` (push-to-start, iOS 17.2) is a
///   Pushgate extension that starts an activity on a device that shows none (docs/relay.md
///   "Live Activity"). Any other value is refused.
public enum LiveActivityEvent: String, Sendable, CaseIterable {
    case update, end, start
}
