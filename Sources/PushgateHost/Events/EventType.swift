/// The kind of thing that happened in a session; the wire name is the raw value.
///
/// - Important: host.md §3 — an unknown type is treated as `update`.
public enum EventType: String, Sendable, CaseIterable {
    case ready, error, question, permission
    case goalComplete = "goal_complete", goalBlocked = "goal_blocked", goalBudget = "goal_budget"
    case taskComplete = "task_complete", taskError = "task_error"
    case update

    /// The type named `wire`, or `update` for a name this host does not know.
    public init(wire: String) { self = EventType(rawValue: wire) ?? .update }

    /// Scheduled-task types, whose body is the task name.
    public var isTask: Bool { self == .taskComplete || self == .taskError }
}
