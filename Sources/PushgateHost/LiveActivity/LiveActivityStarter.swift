import PushgateCore

/// Push-to-start: which devices get a start when a session turns busy, and what the start holds
/// (docs/live-activities.md, "Starting by push").
struct LiveActivityStarter: Sendable {
    /// The alert body of a start.
    static let alertBody = "Started working"
    /// The alert title when the session has none.
    static let untitled = "Session"

    let attributesType: String
    let cooldownMs: Int64

    /// Those of `tokens` whose device shows no activity (no stored activity token of its client:
    /// an accepted `end` removes the token) and whose last accepted start is a cooldown ago.
    func due(_ tokens: [LiveActivityStartToken], showing clients: Set<String>, nowMs: Int64) -> [LiveActivityStartToken] {
        tokens.filter { token in
            !clients.contains(token.client) && token.lastStartedAtMs.map { nowMs - $0 >= cooldownMs } ?? true
        }
    }

    /// The start of an activity showing `sessionId` as working since now, for one token: the
    /// content state an update of that one row would carry, stale 20 minutes later; the
    /// attributes name the session, so the app can register the new activity's update token
    /// for it; the alert names the session.
    func start(token: String, sessionId: String, title: String?, eventVersion: Int64,
               nowMs: Int64) throws(WireFieldError) -> (push: LiveActivityPush, start: LiveActivityStart) {
        let now = Double(nowMs) / 1_000
        let row = try LiveActivityItem(sessionID: sessionId, title: title ?? "", status: .working, startedAt: now)
        let state = try LiveActivityContentState(status: .working, eventVersion: eventVersion, updatedAt: now, title: row.title,
                                                 workingCount: 1, items: [row])
        let push = try LiveActivityPush(tokens: [token], event: .start, contentState: state,
                                        staleDate: nowMs / 1_000 + LiveActivityContent.staleSeconds)
        let start = try LiveActivityStart(attributesType: attributesType, attributes: JSONObject([("sessionId", .string(sessionId))]),
                                          alertTitle: row.title.isEmpty ? Self.untitled : row.title, alertBody: Self.alertBody)
        return (push, start)
    }
}
