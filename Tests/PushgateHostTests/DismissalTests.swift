import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport
import Synchronization

/// docs/host.md "Dismissal": a `resolved` event replaces what it resolves, through host →
/// pushgate-relay (real signatures) → fake APNs and fake FCM.
@Suite(.hangLimit(.minutes(1))) struct DismissalTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]

    /// A harness through the relay without refresh ticks, and one registered iPhone.
    static func harnessWithPhone() async throws -> (HostHarness, String) {
        let harness = try await HostHarness(hostEnvironment: noTicks)
        let iphone = TestToken.make()
        try await harness.register(iphone)
        return (harness, iphone)
    }

    @Test func aResolvedPromptIsReplacedByAPassiveAlertAndLeavesTheBadge() async throws {
        let harness = try await HostHarness(androidAlert: .relay, hostEnvironment: Self.noTicks)
        let fcm = try #require(harness.fakeFCM)
        let iphone = TestToken.make(), pixel = TestToken.android("pixel")
        try await harness.register(iphone)
        try await harness.register(pixel, platform: "android")
        _ = try await harness.dispatch("permission", "s1", name: "deploy", requestId: "r1")
        _ = try await harness.dispatch("error", "s2")
        #expect(harness.payloads(iphone).last?["aps"]?["badge"] == 2)

        let result = try await harness.event("resolved", "s1", name: "deploy", extra: [("requestId", "r1")])
        #expect(result["accepted"] == 2 && result["badge"] == 1)
        let eventId = try #require(result["eventId"]?.stringValue)
        let push = try #require(harness.fake.requests.last { $0.deviceToken == iphone })
        #expect(push.header("apns-collapse-id") == "permission-r1", "the banner it replaces")
        #expect(push.payload == (try JSONValue.parse("""
            {"aps":{"alert":{"title":"Answered on desktop","body":"deploy"},"mutable-content":1,"badge":1,"thread-id":"permission-r1",
            "interruption-level":"passive","relevance-score":0.2},
            "sessionId":"s1","eventId":"\(eventId)","requestId":"r1","kind":"resolved","path":"/sessions/s1"}
            """)))
        let android = try #require(fcm.sends.last { $0.deviceToken == pixel })
        #expect(android.androidNotification?["tag"] == "permission-r1" && android.notificationTitle == "Answered on desktop")
        #expect(android.androidNotification?["notification_count"] == 1)

        let pushes = harness.fake.requests.count
        #expect(try await harness.event("resolved", "s1", extra: [("requestId", "r1")])["accepted"] == 0, "resolved already")
        #expect(try await harness.event("resolved", "s9")["accepted"] == 0, "never pushed")
        #expect(harness.fake.requests.count == pushes)
        #expect(try await harness.call("GET", "/api/status").json?["badge"] == 1)
        await harness.stop()
    }

    @Test func withoutARequestIdEveryPromptOfTheSessionIsResolvedButNotItsOtherAlerts() async throws {
        let (harness, _) = try await Self.harnessWithPhone()
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        _ = try await harness.dispatch("question", "s1", requestId: "q1")
        _ = try await harness.dispatch("ready", "s1")
        let result = try await harness.event("resolved", "s1")
        #expect(result["accepted"] == 2 && result["badge"] == 1, "the ready alert stays")
        let replaced = harness.fake.requests.suffix(2).compactMap { $0.header("apns-collapse-id") }
        #expect(Set(replaced) == ["permission-r1", "question-s1"])
        await harness.stop()
    }

    @Test func aPromptResolvedInsideItsDebounceWindowIsNeverSent() async throws {
        let (harness, iphone) = try await Self.harnessWithPhone()
        #expect(try await harness.event("permission", "s1", extra: [("requestId", "r1")])["pending"] == true)
        #expect(try await harness.event("resolved", "s1", extra: [("requestId", "r1")])["accepted"] == 0)
        harness.scheduler.advance(byMs: EventThrottle.debounceMs)
        await harness.service.waitForScheduledDispatches()
        #expect(harness.payloads(iphone).isEmpty)
        await harness.stop()
    }

    @Test func aResolvedPromptLeavesTheOutbox() async throws {
        let (harness, iphone) = try await Self.harnessWithPhone()
        harness.fake.script(token: iphone, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 30),
                                                      ScriptedResponse(status: 200)])
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        #expect(try await harness.outbox()["depth"] == 1)
        #expect(try await harness.event("resolved", "s1", extra: [("requestId", "r1")])["accepted"] == 1)
        #expect(try await harness.outbox()["depth"] == 0, "the throttled prompt is not sent again")
        await harness.stop()
    }

    @Test func backgroundModeAlsoSendsTheDismissalWithOnlyContentAvailable() async throws {
        let harness = try await HostHarness(androidAlert: .relay, hostEnvironment: Self.noTicks.merging(["PUSHGATE_DISMISS_MODE": "background"]) { $1 })
        let fcm = try #require(harness.fakeFCM)
        let iphone = TestToken.make(), pixel = TestToken.android("pixel")
        try await harness.register(iphone)
        try await harness.register(pixel, platform: "android")
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        _ = try await harness.dispatch("question", "s2", requestId: "q2")
        _ = try await harness.event("resolved", "s1", extra: [("requestId", "r1")])
        harness.scheduler.advance(byMs: 1)
        _ = try await harness.event("resolved", "s2")
        let background = harness.fake.requests.filter { $0.deviceToken == iphone && $0.header("apns-push-type") == "background" }
        #expect(background.count == 2)
        #expect(background.last?.header("apns-priority") == "5" && background.last?.header("apns-collapse-id") == nil)
        #expect(background.last?.payload == (try JSONValue.parse("""
            {"aps":{"content-available":1},"dismiss":{"collapseIds":["question-s2","permission-r1"]}}
            """)), "every collapse id resolved in the last 24 h, newest first")
        let data = fcm.sends.last { $0.deviceToken == pixel }?.message?["data"]
        #expect(data == (try JSONValue.parse(#"{"dismiss_collapse_ids":"question-s2,permission-r1"}"#)))
        await harness.stop()
    }

    @Test func aSessionWideResolveNamesEachReplacedPromptsRequest() async throws {
        let (harness, iphone) = try await Self.harnessWithPhone()
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        #expect(try await harness.event("resolved", "s1")["accepted"] == 1)
        #expect(harness.payloads(iphone).last?["requestId"] == "r1", "the replaced prompt's request id")
        await harness.stop()
    }

    @Test func aGoalThatCompletedIsNoPromptAnyMore() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        try await harness.register(TestToken.make())
        _ = try await harness.dispatch("goal_blocked", "s1")
        _ = try await harness.dispatch("goal_complete", "s1")
        #expect(try await harness.event("resolved", "s1")["accepted"] == 0, "the completion took the blocked goal's banner")
        await harness.stop()
    }

    @Test func aPromptIsRememberedForADayOnly() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        try await harness.register(TestToken.make())
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        harness.clock.advance(milliseconds: HostStore.promptMemoryMs + 1)
        #expect(try await harness.event("resolved", "s1", extra: [("requestId", "r1")])["accepted"] == 0)
        await harness.stop()
    }

    @Test func directModeSendsTheBackgroundDismissalItself() async throws {
        let harness = try await HostHarness(mode: .apns, hostEnvironment: Self.noTicks.merging(["PUSHGATE_DISMISS_MODE": "background"]) { $1 })
        let iphone = TestToken.make()
        try await harness.register(iphone)
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        #expect(try await harness.event("resolved", "s1", extra: [("requestId", "r1")])["accepted"] == 1)
        let background = try #require(harness.fake.requests.last { $0.deviceToken == iphone })
        #expect(background.header("apns-push-type") == "background" && background.header("apns-priority") == "5")
        #expect(background.payload == (try JSONValue.parse(#"{"aps":{"content-available":1},"dismiss":{"collapseIds":["permission-r1"]}}"#)))
        await harness.stop()
    }
}

/// docs/host.md "Dismissal" for hapi's pending-request lists: a resolved request leaves the list.
@Suite struct PendingRequestResolutionTests {
    @Test func aResolvedRequestLeavesTheListAndTheRestIsStillNotified() {
        let scheduler = ManualScheduler()
        let fired = Mutex<[HostEvent]>([])
        let debounce = PendingRequestDebounce(scheduler: scheduler) { event in fired.withLock { $0.append(event) } }
        let event = HostEvent(type: .permission, sessionId: "s1", pendingRequests: [PendingRequest(id: "A"), PendingRequest(id: "B")])
        #expect(debounce.submit(event) == .debounced)
        debounce.cancel(sessionId: "s1", requestId: "A")
        scheduler.advance(byMs: PendingRequestDebounce.delayMs)
        #expect(fired.withLock { $0.map(\.requestId) } == ["B"])

        #expect(debounce.submit(HostEvent(type: .permission, sessionId: "s2", pendingRequests: [PendingRequest(id: "C")])) == .debounced)
        debounce.cancel(sessionId: "s2", requestId: "C")
        scheduler.advance(byMs: PendingRequestDebounce.delayMs)
        #expect(fired.withLock { $0.count } == 1, "nothing left to notify in s2")
    }
}
