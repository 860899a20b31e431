import PushgateCore

/// The kind of thing that happened in a session; the wire name is the raw value.
///
/// - Important: protocol/host-api.md §3 — an unknown type is treated as `update`.
public enum EventType: String, Sendable, CaseIterable {
    case ready, error, question, permission
    case goalComplete = "goal_complete", goalBlocked = "goal_blocked", goalBudget = "goal_budget"
    case taskComplete = "task_complete", taskError = "task_error"
    case update
    /// A prompt was answered elsewhere or its session ended: the host replaces what it pushed
    /// for it (docs/host.md, "Dismissal"); never a notification of its own.
    case resolved

    /// The type named `wire`, or `update` for a name this host does not know.
    public init(wire: String) { self = EventType(rawValue: wire) ?? .update }

    /// Scheduled-task types, whose body is the task name.
    public var isTask: Bool { self == .taskComplete || self == .taskError }

    /// How the type's alert asks for attention (docs/host.md, "Attention"): what needs the user
    /// now breaks through Focus, a finished task does not, an update stays quiet. Permission
    /// prompts and questions carry the category whose buttons answer them.
    public var attention: AlertAttention {
        switch self {
        case .permission: AlertAttention(level: .timeSensitive, relevance: 1, category: AlertAttention.permissionCategory)
        case .question: AlertAttention(level: .timeSensitive, relevance: 1, category: AlertAttention.questionCategory)
        case .goalBlocked: AlertAttention(level: .timeSensitive, relevance: 1)
        case .error, .taskError, .goalBudget: AlertAttention(level: .active, relevance: 0.8)
        case .ready, .taskComplete, .goalComplete: AlertAttention(level: .active, relevance: 0.5)
        case .update, .resolved: AlertAttention(level: .passive, relevance: 0.2)
        }
    }

    /// ``attention`` under `PUSHGATE_TIME_SENSITIVE`: when off, time-sensitive becomes `active`.
    public func attention(timeSensitive: Bool) -> AlertAttention {
        var attention = attention
        if !timeSensitive, attention.level == .timeSensitive { attention.level = .active }
        return attention
    }

    /// The types that ask the user for an answer: what a `resolved` event replaces.
    public var isPrompt: Bool { attention.level == .timeSensitive }

    /// Not a prompt, but pushed under a prompt's tag (`goal-<session>`, as `goal_blocked`): it
    /// takes that banner's place, so the prompt is answered.
    var sharesTagWithPrompt: Bool { self == .goalComplete || self == .goalBudget }
}
