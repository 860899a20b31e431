import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/host.md "Attention": every event type through host → pushgate-relay (real signatures)
/// → fake APNs and fake FCM, with the exact `aps` and FCM message it arrives as (a task type's
/// body is its task name, here none: the `session` word).
@Suite(.hangLimit(.minutes(1))) struct AttentionTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]
    static let channels = ["ANDROID_CHANNEL_ID": "agents", "ANDROID_TIME_SENSITIVE_CHANNEL_ID": "agents-urgent"]

    /// One row per type: level, relevance as written, category.
    static let table: [(type: String, level: String, relevance: String, category: String?)] = [
        ("permission", "time-sensitive", "1", "PUSHGATE_PERMISSION"), ("question", "time-sensitive", "1", "PUSHGATE_QUESTION"),
        ("goal_blocked", "time-sensitive", "1", nil), ("error", "active", "0.8", nil), ("task_error", "active", "0.8", nil),
        ("goal_budget", "active", "0.8", nil), ("ready", "active", "0.5", nil), ("task_complete", "active", "0.5", nil),
        ("goal_complete", "active", "0.5", nil), ("update", "passive", "0.2", nil),
    ]

    @Test func everyEventTypeArrivesWithItsLevelRelevanceCategoryAndIdentifiers() async throws {
        let harness = try await HostHarness(androidAlert: .relay, hostEnvironment: Self.noTicks, relaySettings: Self.channels)
        let fcm = try #require(harness.fakeFCM)
        let iphone = TestToken.make(), pixel = TestToken.android("pixel")
        try await harness.register(iphone)
        try await harness.register(pixel, platform: "android")
        for (index, row) in Self.table.enumerated() {
            let session = "s\(index)", tag = NotificationTag.make(for: HostEvent(type: EventType(wire: row.type), sessionId: session,
                                                                                  requestId: "r\(index)"))
            let eventId = try await harness.dispatch(row.type, session, name: "deploy", requestId: "r\(index)")
            let title = try NotificationTitles.bundled().title(row.type, locale: "en")
            let body = row.type.hasPrefix("task_") ? "Session" : "deploy"
            let sound = row.level == "passive" ? "" : #""sound":"default","#
            let category = row.category.map { #","category":"\#($0)""# } ?? ""
            let expected = try JSONValue.parse("""
                {"aps":{"alert":{"title":"\(title)","body":"\(body)"},\(sound)"mutable-content":1,"badge":\(index + 1),
                "thread-id":"\(tag)","interruption-level":"\(row.level)","relevance-score":\(row.relevance)\(category)},
                "sessionId":"\(session)","eventId":"\(eventId)","requestId":"r\(index)","kind":"\(row.type)","path":"/sessions/\(session)"}
                """)
            let push = try #require(harness.fake.requests.last { $0.deviceToken == iphone })
            #expect(push.payload == expected, "\(row.type)")
            #expect(push.header("apns-collapse-id") == tag && push.header("apns-push-type") == "alert")

            let message = try #require(fcm.sends.last { $0.deviceToken == pixel }?.message, "\(row.type)")
            let android = try #require(message["android"]?.objectValue)
            #expect(android["priority"] == (row.level == "passive" ? "NORMAL" : "HIGH"), "\(row.type)")
            let notification = try #require(android["notification"]?.objectValue)
            #expect(notification["channel_id"] == (row.level == "time-sensitive" ? "agents-urgent" : "agents"), "\(row.type)")
            #expect(notification["notification_priority"] == (row.level == "time-sensitive" ? "PRIORITY_HIGH"
                : row.level == "passive" ? "PRIORITY_LOW" : nil), "\(row.type)")
            #expect(notification["tag"] == .string(tag) && notification["notification_count"] == .integer(Int64(index + 1)))
            #expect(message["data"] == expected.objectValue.map { root in
                .object(JSONObject(root.members.filter { $0.key != "aps" }))
            }, "\(row.type): the same identifiers as the APNs push")
            let channel = row.level == "time-sensitive" ? "agents-urgent" : "agents"
            let priority = row.level == "time-sensitive" ? #","notification_priority":"PRIORITY_HIGH""#
                : row.level == "passive" ? #","notification_priority":"PRIORITY_LOW""# : ""
            let data = try #require(message["data"]).serialized()
            #expect(JSONValue.object(message) == (try JSONValue.parse("""
                {"token":"\(pixel)","notification":{"title":"\(title)","body":"\(body)"},"data":\(data),
                "android":{"priority":"\(row.level == "passive" ? "NORMAL" : "HIGH")","ttl":"3600s",
                "notification":{"channel_id":"\(channel)","tag":"\(tag)","notification_count":\(index + 1)\(priority)}}}
                """)), "\(row.type): the whole FCM message")
        }
        await harness.stop()
    }

    @Test func timeSensitiveOffSendsPromptsAsActive() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks.merging(["PUSHGATE_TIME_SENSITIVE": "off"]) { $1 })
        let iphone = TestToken.make()
        try await harness.register(iphone)
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        let aps = try #require(harness.payloads(iphone).last?["aps"])
        #expect(aps["interruption-level"] == "active" && aps["category"] == "PUSHGATE_PERMISSION" && aps["relevance-score"] == 1)
        await harness.stop()
    }
}

extension HostHarness {
    /// Posts an event and, when the gate held it, closes its debounce window; returns its event id.
    func dispatch(_ type: String, _ sessionId: String, name: String? = nil, requestId: String? = nil) async throws -> String {
        let result = try await event(type, sessionId, name: name, extra: requestId.map { [("requestId", .string($0))] } ?? [])
        if result["pending"] == true {
            scheduler.advance(byMs: EventThrottle.debounceMs)
            await service.waitForScheduledDispatches()
        }
        return try #require(result["eventId"]?.stringValue)
    }
}
