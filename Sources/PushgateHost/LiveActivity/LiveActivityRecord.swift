import PushgateCore

/// One registered Live Activity token: who registered it, for which activity and session,
/// where APNs should send, and the rows it shows.
public struct LiveActivityRecord: Sendable, Equatable {
    /// Hex push token of the activity, case preserved.
    public var token: String
    /// The phone app instance that registered it; only that client may delete it.
    public var client: String?
    public var activityId: String?
    /// The session the activity was started for.
    public var sessionId: String?
    /// `production` or `sandbox`.
    public var environment: String
    /// The snapshot: the rows the activity shows now, at most 4.
    public var rows: [LiveActivityItem]
    public var createdAtMs: Int64
    /// The last registration or refresh by the phone; a day without one expires the token.
    public var lastSeenAtMs: Int64

    public init(token: String, client: String?, activityId: String?, sessionId: String?, environment: String = "production",
                rows: [LiveActivityItem], createdAtMs: Int64, lastSeenAtMs: Int64) {
        self.token = token
        self.client = client
        self.activityId = activityId
        self.sessionId = sessionId
        self.environment = environment
        self.rows = rows
        self.createdAtMs = createdAtMs
        self.lastSeenAtMs = lastSeenAtMs
    }

    /// Whether one of its rows is for `sessionId`.
    func shows(_ sessionId: String) -> Bool { rows.contains { $0.sessionID == sessionId } }
}
