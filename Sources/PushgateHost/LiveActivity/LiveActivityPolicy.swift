/// What the Live Activity engine decides by settings beyond its refresh tick: push-to-start and
/// the priority budget (docs/live-activities.md; docs/host.md, "Home and settings").
public struct LiveActivityPolicy: Sendable, Equatable {
    /// `PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS` when unset.
    public static let defaultStartCooldownSeconds = 600
    /// `PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE` when unset: the type docs/app-integration.md defines.
    public static let defaultAttributesType = "PushgateActivityAttributes"
    /// `PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR` when unset.
    public static let defaultHighPriorityPerHour = 12

    /// The least time between two starts accepted by one device (ms).
    public var startCooldownMs: Int64
    /// `aps.attributes-type` of a start: the name of the app's `ActivityAttributes` type.
    public var attributesType: String
    /// Priority-10 pushes one activity gets per rolling hour before its updates go at 5.
    public var highPriorityPerHour: Int

    public init(startCooldownSeconds: Int = defaultStartCooldownSeconds, attributesType: String = defaultAttributesType,
                highPriorityPerHour: Int = defaultHighPriorityPerHour) {
        startCooldownMs = Int64(startCooldownSeconds) * 1_000
        self.attributesType = attributesType
        self.highPriorityPerHour = highPriorityPerHour
    }
}
