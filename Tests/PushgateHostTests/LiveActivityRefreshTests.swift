import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 line 19 and the refresh engine of §6, driven by the manual scheduler, end to end
/// through the real relay to the fake APNs.
@Suite(.hangLimit(.minutes(1))) struct LiveActivityRefreshTests {
    static let started = 1_764_669_000.25

    @Test func unchangedStatesSendNoRequestAtAll() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1", items: [
            activityRow("s1", "Build", "working", startedAt: Self.started), activityRow("s2", "Ask", "permission", startedAt: Self.started),
        ])
        try await harness.state("s1", "busy", title: "Build")
        try await harness.state("s2", "busy")
        for _ in 0..<3 { await harness.tick() }
        #expect(harness.fake.requests.isEmpty)
        #expect(harness.relayCount("live-activity") == 0 && harness.relayCount("live-activity", status: 400) == 0)
        let rows = try await harness.activity(token)?.rows
        #expect(rows?.map(\.status) == [.working, .permission], "a busy session keeps permission")
        await harness.stop()
    }

    @Test func staleBecomesWorkingInARoutineUpdate() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1", items: [
            activityRow("s1", "Build", "stale", startedAt: Self.started), activityRow("s9", "Gone", "working", startedAt: Self.started),
        ])
        try await harness.state("s1", "busy")
        await harness.tick()
        let pushes = harness.activityPushes(token)
        #expect(pushes.count == 1)
        #expect(pushes.first?.payload == (try harness.activityPayloadNow(
            event: "update", status: "working", title: "Build", workingCount: 2,
            items: [activityRow("s1", "Build", "working", startedAt: Self.started),
                    activityRow("s9", "Gone", "working", startedAt: Self.started)],
            staleAfter: 1_200)), "a row with no known state (s9) is kept as is")
        #expect(pushes.first?.apnsHeaders.contains("apns-priority: 5") == true)
        await harness.tick()
        #expect(harness.activityPushes(token).count == 1, "the next tick finds nothing changed")
        await harness.stop()
    }

    @Test func visibleNewBusySessionIsAddedInvisibleIsNot() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1",
                                           items: [activityRow("s1", "Build", "working", startedAt: Self.started)])
        try await harness.state("s1", "busy")
        try await harness.state("s2", "retry", title: String(repeating: "d", count: 100), visible: true)
        try await harness.state("s3", "busy", title: "Hidden", visible: false)
        try await harness.state("c1", "busy", title: "Child", visible: true, extra: [("parentId", "s1")])
        await harness.tick()
        let now = Double(harness.clock.nowMilliseconds) / 1_000
        let state = try #require(harness.activityPushes(token).first?.payload?["aps"]?["content-state"])
        #expect(state["items"] == (try wire([activityRow("s1", "Build", "working", startedAt: Self.started),
                                             activityRow("s2", String(repeating: "d", count: 80), "retry", startedAt: now)])))
        #expect(state["workingCount"] == 2)
        await harness.stop()
    }

    @Test func fiveRowsBecomeFourWorkingFirstThenNewestEnded() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s3", items: [
            activityRow("s1", "One", "complete", startedAt: Self.started, endedAt: Self.started + 10),
            activityRow("s2", "Two", "complete", startedAt: Self.started, endedAt: Self.started + 20),
            activityRow("s3", "Three", "working", startedAt: Self.started),
            activityRow("s4", "Four", "error", startedAt: Self.started, endedAt: Self.started + 30),
        ])
        try await harness.state("s3", "busy")
        try await harness.state("s5", "busy", title: "Five", visible: true)
        await harness.tick()
        let now = Double(harness.clock.nowMilliseconds) / 1_000
        #expect(harness.activityPushes(token).first?.payload?["aps"]?["content-state"]?["items"] == (try wire([
            activityRow("s3", "Three", "working", startedAt: Self.started), activityRow("s5", "Five", "working", startedAt: now),
            activityRow("s4", "Four", "error", startedAt: Self.started, endedAt: Self.started + 30),
            activityRow("s2", "Two", "complete", startedAt: Self.started, endedAt: Self.started + 20),
        ])))
        #expect(try await harness.activity(token)?.rows.map(\.sessionID) == ["s3", "s5", "s4", "s2"])
        await harness.stop()
    }

    @Test func tickEndsTheActivityWhenNothingWorksAnyMore() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1",
                                           items: [activityRow("s1", "Build", "working", startedAt: Self.started)])
        try await harness.state("s1", "idle", extra: [("parentId", "p1")])  // a child: no push of its own
        #expect(harness.activityPushes(token).isEmpty)
        await harness.tick()
        let push = try #require(harness.activityPushes(token).first)
        let now = Double(harness.clock.nowMilliseconds) / 1_000
        #expect(push.payload?["aps"]?["event"] == "end")
        #expect(push.payload?["aps"]?["dismissal-date"] == .integer(harness.nowSeconds + 900))
        #expect(push.payload?["aps"]?["content-state"]?["items"] == (try wire([
            activityRow("s1", "Build", "complete", startedAt: Self.started, endedAt: now)])))
        #expect(push.apnsHeaders.contains("apns-priority: 10"))
        #expect(try await harness.activity(token) == nil)
        await harness.stop()
    }

    @Test func overlappingTicksAreDroppedNotQueued() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1",
                                           items: [activityRow("s1", "Build", "stale", startedAt: Self.started)])
        try await harness.state("s1", "busy")
        // The provider holds the first tick's push for 300 ms of real time; the next two ticks fall due meanwhile.
        harness.fake.script(token: token, .success(afterMilliseconds: 300))
        harness.scheduler.advance(byMs: 3 * harness.service.liveActivities.refreshIntervalMs)
        await harness.service.liveActivities.waitUntilIdle()
        #expect(harness.service.liveActivities.droppedTicks == 2)
        #expect(harness.activityPushes(token).count == 1)
        #expect(harness.relayCount("live-activity") == 1)
        await harness.tick()
        #expect(harness.service.liveActivities.droppedTicks == 2, "ticks run again once the slow one is done")
        await harness.stop()
    }

    @Test func intervalZeroNeverTicks() async throws {
        let harness = try await HostHarness(hostEnvironment: ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"])
        #expect(harness.service.liveActivities.refreshIntervalMs == 0)
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1",
                                           items: [activityRow("s1", "Build", "stale", startedAt: Self.started)])
        try await harness.state("s1", "busy")
        harness.scheduler.advance(byMs: 10 * LiveActivityEngine.defaultRefreshIntervalMs)
        await harness.service.liveActivities.waitUntilIdle()
        #expect(harness.fake.requests.isEmpty)
        #expect(try await harness.activity(token)?.rows.map(\.status) == [.stale])
        await harness.stop()
    }

    @Test func intervalSettingParses() {
        #expect(HostSettings.refreshInterval(nil) == 30_000)
        #expect(HostSettings.refreshInterval("15000") == 15_000)
        #expect(HostSettings.refreshInterval("0") == 0)
        #expect(HostSettings.refreshInterval("-5") == 30_000)
        #expect(HostSettings.refreshInterval("soon") == 30_000)
        #expect(HostSettings.refreshInterval("1.5") == 30_000)
    }

    @Test func tickWithNoTokensCostsOneStoreRead() async throws {
        let harness = try await HostHarness()
        let engine = harness.service.liveActivities
        let before = await engine.store.reads
        let delivery = try await engine.startTick()?.value
        #expect(delivery == LiveActivityDelivery())
        #expect(await engine.store.reads - before == 1)
        await harness.stop()
    }
}
