import PushgateCore

/// One hub event of a scenario. `error` and `task_complete` go out at once, every one: a
/// `ready` within 5 s of the last one for its session is dropped (cooldown) and `question` and
/// `permission` wait 500 ms and keep only the last of their window (debounce), which would
/// make "one push per device per event" untrue. A session of its own per event keeps every
/// push apart on a device too (its own thread and collapse id).
struct FaultEvent: Sendable {
    let eventId: String
    let body: JSONValue

    init(index: Int) {
        eventId = "fault-\(index)"
        var body = JSONObject([("eventId", .string(eventId)), ("sessionId", .string("session-\(index)"))])
        if index.isMultiple(of: 2) {
            body["type"] = "error"
        } else {
            body["type"] = "task_complete"
            body["taskName"] = .string("task \(index)")
        }
        self.body = .object(body)
    }
}
