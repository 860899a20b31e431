import PushgateCore
@testable import PushgateHost
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 30 and 40, end to end: events posted to the host API, encrypted per
/// device, sent to the fake APNs (`apns` mode), decrypted with the device's key.
@Suite(.hangLimit(.minutes(1))) struct HapiEventTests {
    static func ready(_ session: String, text: String? = nil) -> JSONObject {
        var body = JSONObject([("type", "ready"), ("sessionId", .string(session)), ("sessionName", "Demo"), ("agent", "Claude")])
        if let text { body["agentText"] = .string(text) }
        return body
    }

    static func permission(_ session: String, _ ids: [String]) -> JSONObject {
        JSONObject([("type", "permission"), ("sessionId", .string(session)), ("sessionName", "Demo"), ("agent", "Claude"),
                    ("pendingRequests", .array(ids.map { .object(JSONObject([("id", .string($0)), ("tool", "Bash"),
                                                                             ("arguments", ["command": "make"])])) }))])
    }

    @Test func readyCooldownIsFiveSecondsPerSession() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        try await harness.registerDevice(token)
        #expect(try await harness.event(Self.ready("s1"))["accepted"] == 1)
        await harness.advance(byMs: 4_000)
        #expect(try await harness.event(Self.ready("s1"))["suppressed"] == "cooldown")
        #expect(harness.apnsRequests(token).count == 1)
        await harness.advance(byMs: 2_000)
        #expect(try await harness.event(Self.ready("s1"))["accepted"] == 1)
        #expect(try await harness.event(Self.ready("s2"))["accepted"] == 1, "the cooldown is per session")
        #expect(harness.apnsRequests(token).count == 3)
        await harness.stop()
    }

    @Test func newRequestIdsRestartATrailingDebounce() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        #expect(try await harness.event(Self.permission("s1", ["r1"]))["pending"] == true)
        await harness.advance(byMs: 150)
        #expect(try await harness.event(Self.permission("s1", ["r1", "r2"]))["pending"] == true)
        await harness.advance(byMs: 150)
        #expect(try await harness.event(Self.permission("s1", ["r1", "r2", "r3"]))["pending"] == true)
        await harness.advance(byMs: 499)
        #expect(harness.apnsRequests(token).isEmpty)
        await harness.advance(byMs: 1)
        let requests = harness.apnsRequests(token)
        #expect(requests.count == 1, "one notification, 500 ms after the last new id")
        let opened = try DeviceSide.open(try #require(requests.first), key: key)
        #expect(opened.payload.type == .permissionRequest && opened.payload.requestId == "r1")
        #expect(opened.payload.title == "Permission Request" && opened.payload.body == "Claude Bash: make\nSession: Demo\nCommand: make")
        #expect(requests.first?.header("apns-collapse-id") == "permission-request-s1")
        #expect(requests.first?.header("apns-push-type") == "alert" && requests.first?.header("apns-topic") == HostHarness.bundleId)
        // The same ids again: nothing new, nothing pending, nothing sent.
        let same = try await harness.event(Self.permission("s1", ["r1", "r2", "r3"]))
        #expect(same["pending"] == nil && same["accepted"] == 0)
        await harness.advance(byMs: 1_000)
        #expect(harness.apnsRequests(token).count == 1)
        await harness.stop()
    }

    @Test func anEmptyListCancelsThePendingNotification() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        try await harness.registerDevice(token)
        let baseline = harness.scheduler.pendingCount
        _ = try await harness.event(Self.permission("s1", ["r1"]))
        #expect(harness.scheduler.pendingCount == baseline + 1)
        await harness.advance(byMs: 100)
        let cancelled = try await harness.event(Self.permission("s1", []))
        #expect(cancelled["pending"] == nil && cancelled["accepted"] == 0)
        await harness.advance(byMs: 2_000)
        #expect(harness.apnsRequests(token).isEmpty)
        #expect(harness.scheduler.pendingCount == baseline, "the debounce timer was cancelled")
        await harness.stop()
    }

    @Test func readySummaryFooterReachesTheDevice() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let text = "I refactored it.\nDone.AGENT_NOTIFY_SUMMARY {\"version\":1,\"summary\":\"S\",\"action\":\"A\"}"
        #expect(try await harness.event(Self.ready("s1", text: text))["nativeDelivered"] == true)
        let request = try #require(harness.apnsRequests(token).first)
        let opened = try DeviceSide.open(request, key: key)
        #expect(opened.payload.title == "Claude - Demo" && opened.payload.body == "S\n-> A")
        #expect(opened.payload.notifySummary == #"{"version":1,"summary":"S","action":"A"}"#)
        #expect(try DeviceSide.plaintext(opened.envelope, key: key) == String(decoding: opened.payload.canonicalPlaintext, as: UTF8.self))
        #expect(request.header("apns-collapse-id") == "ready-s1")
        #expect(harness.leaks(["I refactored it", "Claude - Demo", token, key.storedForm, opened.envelope]).isEmpty)
        await harness.stop()
    }

    @Test func killedTaskIsAFailure() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let body = JSONObject([("type", "task_complete"), ("sessionId", "s1"), ("sessionName", "Demo"), ("agent", "Claude"),
                               ("task", ["summary": "Nightly build", "status": "Killed"])])
        #expect(try await harness.event(body)["accepted"] == 1)
        let opened = try DeviceSide.open(try #require(harness.apnsRequests(token).first), key: key)
        #expect(opened.payload.type == .taskNotification && opened.payload.title == "Task failed" && opened.payload.severity == .error)
        #expect(opened.payload.body == "Claude \u{00B7} Demo \u{00B7} Nightly build")
        await harness.stop()
    }

    @Test func collapseIdsAreCutAtScalarBoundaries() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        try await harness.registerDevice(token)
        let emoji = String(repeating: "a", count: 56) + "😀"
        _ = try await harness.event(Self.ready(emoji))
        let ascii = String(repeating: "b", count: 64)
        _ = try await harness.event(Self.ready(ascii))
        let headers = harness.apnsRequests(token).map { $0.header("apns-collapse-id") }
        #expect(headers == ["ready-" + String(repeating: "a", count: 56), String(("ready-" + ascii).prefix(64))])
        #expect(headers.allSatisfy { ($0?.utf8.count ?? 0) <= 64 })
        await harness.stop()
    }
}
