import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 line 18 and §6 (session end, failed end, drop, priority): host ↔ real relay
/// (every signature verified) ↔ fake APNs, manual clock; exact payloads and headers.
@Suite(.hangLimit(.minutes(1))) struct LiveActivityLifecycleTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]
    static let started = 1_764_669_000.5
    /// The headers of a Live Activity push with `priority`: it expires at its own dismissal date
    /// (an end) or stale date (an update).
    static func headers(of push: RecordedRequest, priority: Int) -> [String] {
        let aps = push.payload?["aps"]
        let until = aps?["dismissal-date"]?.int64Value ?? aps?["stale-date"]?.int64Value ?? -1
        return ["apns-topic: dev.pushgate.tests.push-type.liveactivity", "apns-push-type: liveactivity",
                "apns-priority: \(priority)", "apns-expiration: \(until)"]
    }
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var buildWorking: JSONValue { activityRow("s1", "Build", "working", startedAt: started) }
    static var testWorking: JSONValue { activityRow("s2", "Test", "working", startedAt: started) }

    /// A harness without refresh ticks, and the token of activity `act-1` for session `s1`,
    /// registered with `items` (200).
    static func harnessWithActivity(_ items: [JSONValue]? = [buildWorking], mode: IOSPushMode = .relay,
                                    environment: String? = nil) async throws -> (HostHarness, String) {
        let harness = try await HostHarness(mode: mode, hostEnvironment: noTicks)
        let token = TestToken.make()
        #expect(try await harness.registerActivity(token, activity: "act-1", session: "s1", items: items, environment: environment) == 200)
        return (harness, token)
    }

    @Test func idleSessionWithOneRowEndsCompleteWithIntegerDismissalAndIsRemoved() async throws {
        let (harness, token) = try await Self.harnessWithActivity()
        harness.scheduler.advance(byMs: 1_234)
        let answer = try await harness.state("s1", "idle")
        #expect(answer == (try wire(["ok": true, "requests": 1, "accepted": 1, "failed": 0, "dropped": 0, "queued": 0])))
        let pushes = harness.activityPushes(token)
        #expect(pushes.count == 1)
        #expect(pushes.first?.payload == (try harness.activityPayloadNow(
            event: "end", status: "complete", title: "Build", workingCount: 0,
            items: [activityRow("s1", "Build", "complete", startedAt: Self.started, endedAt: harness.now)], dismissalAfter: 900)))
        #expect(pushes.first.map { $0.apnsHeaders == Self.headers(of: $0, priority: 10) } == true)
        #expect(pushes.first?.header("apns-collapse-id") == nil)
        // 200 from the relay: it verified the signature over its own normalisation of the request.
        #expect(harness.relayCount("live-activity") == 1 && harness.relayCount("register-la") == 1)
        #expect(try await harness.activity(token) == nil, "an accepted end removes the token")
        #expect(harness.leaks([token, "Build"]).isEmpty)
        await harness.stop()
    }

    @Test func errorSessionEndsWithAnHourOfDismissal() async throws {
        let (harness, token) = try await Self.harnessWithActivity([activityRow("s1", "Migrate", "working", startedAt: Self.started)])
        try await harness.state("s1", "error", title: "Migrate DB")
        let push = try #require(harness.activityPushes(token).first)
        #expect(push.payload == (try harness.activityPayloadNow(
            event: "end", status: "error", title: "Migrate DB", workingCount: 0,
            items: [activityRow("s1", "Migrate DB", "error", startedAt: Self.started, endedAt: harness.now)], dismissalAfter: 3_600)))
        #expect(push.apnsHeaders == Self.headers(of: push, priority: 10))
        await harness.stop()
    }

    @Test func anotherRowStillWorkingSendsUpdateWithIntegerStaleDate() async throws {
        let (harness, token) = try await Self.harnessWithActivity([Self.buildWorking,
                                                                    activityRow("s2", "Test", "working", startedAt: Self.started + 1)])
        harness.scheduler.advance(byMs: 777)
        try await harness.state("s1", "idle")
        #expect(harness.now != harness.now.rounded(.down), "a fractional updatedAt shows that staleDate is floored")
        let update = try #require(harness.activityPushes(token).last)
        #expect(update.payload == (try harness.activityPayloadNow(
            event: "update", status: "working", title: "Test", workingCount: 1,
            items: [activityRow("s1", "Build", "complete", startedAt: Self.started, endedAt: harness.now),
                    activityRow("s2", "Test", "working", startedAt: Self.started + 1)],
            staleAfter: 1_200)))
        #expect(update.apnsHeaders == Self.headers(of: update, priority: 5), "a row completing is routine: priority 5")
        #expect(try await harness.activity(token)?.rows.map(\.status) == [.complete, .working])

        // The second session fails: a change into error is urgent; then nothing works any more → end.
        let nowMs = harness.clock.nowMilliseconds
        try await harness.state("s2", "error")
        let ended = try #require(harness.activityPushes(token).last)
        #expect(ended.payload?["aps"]?["event"] == "end" && ended.payload?["aps"]?["content-state"]?["status"] == "error")
        #expect(ended.payload?["aps"]?["content-state"]?["eventVersion"] == .integer(nowMs + 1), "same millisecond: previous + 1")
        #expect(ended.apnsHeaders == Self.headers(of: ended, priority: 10))
        #expect(harness.activityPushes(token).count == 2)
        await harness.stop()
    }

    @Test func childAndSystemSessionsAndRepeatsSendNothing() async throws {
        let (harness, token) = try await Self.harnessWithActivity()
        #expect(try await harness.state("s1", "idle", extra: [("parentId", "p1")])["requests"] == 0)
        #expect(try await harness.state("s1", "error", extra: [("system", true)])["requests"] == 0)
        #expect(try await harness.state("s1", "busy")["requests"] == 0, "busy does not push by itself")
        #expect(harness.activityPushes(token).isEmpty)
        #expect(try await harness.activity(token)?.rows.map(\.status) == [.working])
        await harness.stop()
    }

    /// docs/host.md "Outbox": a failed end leaves the engine (no tick sends it again) and the
    /// outbox sends it once more; a refused one keeps the rows, so the next change tries again.
    @Test func failedEndIsQueuedAndTheOutboxSendsItOnce() async throws {
        let (harness, token) = try await Self.harnessWithActivity()
        harness.fake.script(token: token, ScriptedResponse(status: 429, reason: .tooManyRequests))
        #expect(try await harness.state("s1", "idle")
                == (try wire(["ok": true, "requests": 1, "accepted": 0, "failed": 1, "dropped": 0, "queued": 1])))
        #expect(try await harness.activity(token) == nil, "the outbox owns the end now")
        harness.fake.clearScripts()
        await harness.advanceOutbox(byMs: 2_000)
        let ends = harness.activityPushes(token)
        #expect(ends.map { $0.payload?["aps"]?["event"] } == ["end", "end"])
        #expect(ends.last?.payload?["aps"]?["content-state"] == ends.first?.payload?["aps"]?["content-state"])
        #expect(try await harness.outbox()["delivered"] == 1)
        await harness.stop()
    }

    @Test func refusedEndKeepsTheTokenAndTheNextEndSucceeds() async throws {
        let (harness, token) = try await Self.harnessWithActivity()
        harness.fake.script(token: token, ScriptedResponse(status: 400, reason: .badExpirationDate))
        #expect(try await harness.state("s1", "idle")
                == (try wire(["ok": true, "requests": 1, "accepted": 0, "failed": 1, "dropped": 0, "queued": 0])))
        let kept = try #require(try await harness.activity(token))
        #expect(kept.rows.map(\.status) == [.working], "the refused end leaves the rows as they were, so it is tried again")
        harness.fake.clearScripts()
        harness.scheduler.advance(byMs: 1)
        #expect(try await harness.state("s1", "idle")["accepted"] == 1)
        #expect(harness.activityPushes(token).map { $0.payload?["aps"]?["event"] } == ["end", "end"])
        #expect(try await harness.activity(token) == nil)
        await harness.stop()
    }

    @Test func dropRemovesTheToken() async throws {
        let (harness, dead) = try await Self.harnessWithActivity([Self.buildWorking, Self.testWorking])
        let alive = TestToken.make()
        try await harness.registerActivity(alive, activity: "act-2", session: "s1", items: [Self.buildWorking, Self.testWorking])
        harness.fake.script(token: dead, .unregistered)
        let answer = try await harness.state("s1", "idle")
        #expect(answer == (try wire(["ok": true, "requests": 1, "accepted": 1, "failed": 0, "dropped": 1, "queued": 0])), "same rows: one request")
        #expect(try await harness.activity(dead) == nil)
        #expect(try await harness.activity(alive)?.rows.map(\.status) == [.complete, .working])
        await harness.stop()
    }

    @Test func permissionAndQuestionEventsAreUrgentUpdates() async throws {
        let (harness, token) = try await Self.harnessWithActivity([Self.buildWorking, Self.testWorking])
        _ = try await harness.event("permission", "s2", extra: [("requestId", "r1")])
        await harness.service.liveActivities.waitUntilIdle()
        let push = try #require(harness.activityPushes(token).last)
        #expect(push.payload == (try harness.activityPayloadNow(
            event: "update", status: "working", title: "Build", workingCount: 2,
            items: [Self.buildWorking, activityRow("s2", "Test", "permission", startedAt: Self.started)], staleAfter: 1_200)))
        #expect(push.apnsHeaders.contains("apns-priority: 10"))
        _ = try await harness.event("question", "s1")
        await harness.service.liveActivities.waitUntilIdle()
        #expect(harness.activityPushes(token).last?.payload?["aps"]?["content-state"]?["status"] == "input")
        #expect(harness.activityPushes(token).last?.apnsHeaders.contains("apns-priority: 10") == true)
        _ = try await harness.event("permission", "c1", extra: [("parentSessionId", "s1")])
        _ = try await harness.event("question", "s1")
        await harness.service.liveActivities.waitUntilIdle()
        #expect(harness.activityPushes(token).count == 2, "a child's event and a repeat change nothing")
        await harness.stop()
    }

    @Test func directAPNsModeSendsTheSamePayload() async throws {
        let (harness, token) = try await Self.harnessWithActivity(nil, mode: .apns, environment: "sandbox")
        let registeredAt = harness.now
        try await harness.state("s1", "idle", title: "Refactor")
        let push = try #require(harness.activityPushes(token).first)
        #expect(push.payload == (try harness.activityPayloadNow(
            event: "end", status: "complete", title: "Refactor", workingCount: 0,
            items: [activityRow("s1", "Refactor", "complete", startedAt: registeredAt, endedAt: harness.now)], dismissalAfter: 900)))
        #expect(push.apnsHeaders == Self.headers(of: push, priority: 10))
        #expect(try await harness.activity(token) == nil)
        await harness.stop()
    }
}
