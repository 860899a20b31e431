import PushgateCore

/// What the soak's hub sends, request by request, in a cycle of eight: `error`,
/// `task_complete`, `ready`, `permission`, `error`, `task_complete`, `ready`, and a Live
/// Activity session state (`PUT /api/sessions/:id/state`, `idle` and `error` in turn, each a
/// push to the activities showing that session). Sessions come from small pools, as a hub's
/// do, so the host's per-session state stays bounded: a `ready` often falls in its session's
/// 5 s cooldown and a `permission` in its 500 ms debounce window, which the mix keeps on purpose.
struct SoakMix: Sendable {
    /// One request of the mix.
    struct Request: Sendable {
        let method: String
        let path: String
        let body: [UInt8]
        /// A `POST /api/events`: its latency goes into the soak's series.
        var isEvent: Bool { path == "/api/events" }
    }

    /// Sessions of the alert events; permission sessions.
    static let sessions = 64
    static let permissionSessions = 16
    /// The sessions the Live Activity tokens show, one token each.
    static let liveActivitySessions = ["la-0", "la-1"]

    func request(_ index: Int) -> Request {
        let round = index / 8
        switch index % 8 {
        case 0, 4: return event("error", session: "s-\(round % Self.sessions)", ("sessionName", "Session \(round % Self.sessions)"))
        case 1, 5: return event("task_complete", session: "s-\(round % Self.sessions)", ("taskName", "task \(round)"))
        case 2, 6: return event("ready", session: "s-\(round % Self.sessions)")
        case 3: return event("permission", session: "p-\(round % Self.permissionSessions)")
        default:
            let session = Self.liveActivitySessions[round % Self.liveActivitySessions.count]
            let status = (round / Self.liveActivitySessions.count).isMultiple(of: 2) ? "idle" : "error"
            return Request(method: "PUT", path: "/api/sessions/\(session)/state",
                           body: Array(JSONObject([("status", .string(status))]).serialized().utf8))
        }
    }

    /// The body registering Live Activity token `token` for `session`.
    static func liveActivityRegistration(token: String, session: String) -> [UInt8] {
        Array(JSONObject([("token", .string(token)), ("activityId", .string("activity-\(session)")),
                          ("sessionId", .string(session))]).serialized().utf8)
    }

    private func event(_ type: String, session: String, _ extra: (String, String)? = nil) -> Request {
        var body = JSONObject([("type", .string(type)), ("sessionId", .string(session))])
        if let (key, value) = extra { body[key] = .string(value) }
        return Request(method: "POST", path: "/api/events", body: Array(body.serialized().utf8))
    }
}
