import PushgateCore
@testable import PushgateHost
import PushgateTesting

/// Live Activity calls on ``HostHarness``: the host API routes, scheduler ticks, and what the
/// fake APNs received.
extension HostHarness {
    /// `POST /api/push/live-activity-token`; returns the status.
    @discardableResult
    func registerActivity(_ token: String, activity: String, session: String, items: [JSONValue]? = nil,
                          client: String? = "phone-1", environment: String? = nil) async throws -> Int {
        var body = JSONObject([("token", .string(token)), ("activityId", .string(activity)), ("sessionId", .string(session))])
        if let items { body["items"] = .array(items) }
        if let client { body["client"] = .string(client) }
        if let environment { body["environment"] = .string(environment) }
        return try await call("POST", "/api/push/live-activity-token", .object(body)).status
    }

    /// `POST /api/push/live-activity-token` with `kind:"start"`: a device's push-to-start token; returns the status.
    @discardableResult
    func registerStart(_ token: String, client: String? = "phone-1", environment: String? = nil) async throws -> Int {
        var body = JSONObject([("kind", "start"), ("token", .string(token))])
        if let client { body["client"] = .string(client) }
        if let environment { body["environment"] = .string(environment) }
        return try await call("POST", "/api/push/live-activity-token", .object(body)).status
    }

    /// `DELETE /api/push/live-activity-token` with `members`; returns the status.
    func removeActivity(_ members: [(String, JSONValue)]) async throws -> Int {
        try await call("DELETE", "/api/push/live-activity-token", .object(JSONObject(members))).status
    }

    /// `PUT /api/sessions/:id/state`; returns the answer's body (`{"ok":true, …delivery}`).
    @discardableResult
    func state(_ session: String, _ status: String, title: String? = nil, visible: Bool? = nil,
               extra: [(String, JSONValue)] = []) async throws -> JSONValue {
        var body = JSONObject([("status", .string(status))])
        if let title { body["title"] = .string(title) }
        if let visible { body["visible"] = .bool(visible) }
        for (key, value) in extra { body[key] = value }
        let answer = try await call("PUT", "/api/sessions/\(session)/state", .object(body))
        precondition(answer.status == 200, "state answered \(answer.status)")
        return answer.json ?? .null
    }

    /// Moves time on by one refresh interval (the scheduler runs the tick) and waits for the tick to finish.
    func tick() async {
        scheduler.advance(byMs: service.liveActivities.refreshIntervalMs)
        await service.liveActivities.waitUntilIdle()
    }

    /// Live Activity pushes the fake received for `token`, in order.
    func activityPushes(_ token: String) -> [RecordedRequest] {
        fake.requests.filter { $0.deviceToken == token && $0.header("apns-push-type") == "liveactivity" }
    }

    /// The stored Live Activity token, if any.
    func activity(_ token: String) async throws -> LiveActivityRecord? { try await service.liveActivities.store.record(token) }

    /// The clock now, in whole seconds.
    var nowSeconds: Int64 { clock.nowMilliseconds / 1_000 }

    /// The clock now, in seconds with milliseconds (as `updatedAt` and `endedAt` carry it).
    var now: Double { Double(clock.nowMilliseconds) / 1_000 }

    /// The exact payload of a Live Activity push sent at the clock's current time: `timestamp`,
    /// `eventVersion` and `updatedAt` are now, and an `end` ended now; the dismissal and stale
    /// dates lie `dismissalAfter` and `staleAfter` whole seconds after now (floored).
    func activityPayloadNow(event: String, status: String, title: String, workingCount: Int, items: [JSONValue],
                            dismissalAfter: Int64? = nil, staleAfter: Int64? = nil) throws -> JSONValue {
        try activityPayload(timestamp: nowSeconds, event: event, status: status, eventVersion: clock.nowMilliseconds,
                            updatedAt: now, endedAt: event == "end" ? now : nil, title: title, workingCount: workingCount,
                            items: items, dismissalDate: dismissalAfter.map { nowSeconds + $0 },
                            staleDate: staleAfter.map { nowSeconds + $0 })
    }
}

/// A row as a phone sends it and as the relay forwards it: `{sessionID, title, status, startedAt, endedAt?}`.
func activityRow(_ session: String, _ title: String, _ status: String, startedAt: Double, endedAt: Double? = nil) -> JSONValue {
    var object = JSONObject([("sessionID", .string(session)), ("title", .string(title)), ("status", .string(status)),
                             ("startedAt", .double(startedAt))])
    if let endedAt { object["endedAt"] = .double(endedAt) }
    return .object(object)
}

/// `value` as the fake reads it back from the wire (numbers as the parser types them).
func wire(_ value: JSONValue) throws -> JSONValue { try JSONValue.parse(value.serialized()) }

/// The exact Live Activity payload the relay forwards (protocol/signed-relay.md §5), member order included.
func activityPayload(timestamp: Int64, event: String, status: String, eventVersion: Int64, updatedAt: Double,
                     endedAt: Double? = nil, title: String, workingCount: Int, items: [JSONValue],
                     dismissalDate: Int64? = nil, staleDate: Int64? = nil) throws -> JSONValue {
    var state = JSONObject([("status", .string(status)), ("eventVersion", .integer(eventVersion)), ("updatedAt", .double(updatedAt))])
    if let endedAt { state["endedAt"] = .double(endedAt) }
    state["title"] = .string(title)
    state["workingCount"] = .integer(Int64(workingCount))
    state["items"] = .array(items)
    var aps = JSONObject([("timestamp", .integer(timestamp)), ("event", .string(event)), ("content-state", .object(state))])
    if let dismissalDate { aps["dismissal-date"] = .integer(dismissalDate) }
    if let staleDate { aps["stale-date"] = .integer(staleDate) }
    return try wire(.object(JSONObject([("aps", .object(aps))])))
}

extension RecordedRequest {
    /// The APNs headers other than the provider token and `apns-id`, as `name: value` lines.
    var apnsHeaders: [String] {
        headers.filter { $0.name.hasPrefix("apns-") && $0.name != "apns-id" }.map { "\($0.name): \($0.value)" }
    }
}
