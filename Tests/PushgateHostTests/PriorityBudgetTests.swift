import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/live-activities.md "Priority budget": an activity gets at most
/// `PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR` (12) priority-10 pushes per rolling hour; the
/// updates beyond go at 5, an end keeps 10, and `/api/status` shows the counts. Through the real
/// relay to the fake APNs, on the manual clock.
@Suite(.hangLimit(.minutes(1))) struct PriorityBudgetTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]
    static let started = 1_764_669_000.5

    /// A harness with `act-1` showing two working sessions, `s1` and `s2`.
    static func harnessWithActivity(_ environment: [String: String] = [:]) async throws -> (HostHarness, String) {
        let harness = try await HostHarness(hostEnvironment: noTicks.merging(environment) { $1 })
        let token = TestToken.make()
        #expect(try await harness.registerActivity(token, activity: "act-1", session: "s1", items: [
            activityRow("s1", "Build", "working", startedAt: started), activityRow("s2", "Test", "working", startedAt: started),
        ]) == 200)
        return (harness, token)
    }

    /// A `permission` or `question` event of `s1` (alternately, so each is a change into an
    /// urgent status); returns the `apns-priority` its Live Activity update went at.
    static func urgentUpdate(_ harness: HostHarness, _ token: String, _ n: Int) async throws -> String? {
        _ = try await harness.event(n.isMultiple(of: 2) ? "question" : "permission", "s1", extra: [("requestId", .string("r\(n)"))])
        await harness.service.liveActivities.waitUntilIdle()
        return harness.activityPushes(token).last?.header("apns-priority")
    }

    static func budget(_ harness: HostHarness) async throws -> JSONValue {
        try await harness.call("GET", "/api/status").json?["liveActivityPriority"] ?? .null
    }

    @Test func theThirteenthUrgentUpdateOfTheHourGoesAtFive() async throws {
        let (harness, token) = try await Self.harnessWithActivity()
        let firstAtMs = harness.clock.nowMilliseconds
        var priorities: [String?] = []
        for n in 1...13 {
            priorities.append(try await Self.urgentUpdate(harness, token, n))
            harness.scheduler.advance(byMs: 60_000)
        }
        #expect(priorities == Array(repeating: "10", count: 12) + ["5"])
        #expect(harness.activityPushes(token).count == 13, "the thirteenth is still sent, at 5")
        #expect(try await Self.budget(harness) == (try wire(["perHour": 12, "sentLastHour": 12, "demotedLastHour": 1,
                                                              "activities": [["activityId": "act-1", "sentLastHour": 12]]])))

        // An hour after the first, it has left the window: the next urgent update goes at 10 again.
        harness.scheduler.advance(byMs: firstAtMs + 3_600_000 - harness.clock.nowMilliseconds)
        await harness.service.liveActivities.waitUntilIdle()
        #expect(try await Self.urgentUpdate(harness, token, 14) == "10")
        #expect(try await Self.budget(harness)["sentLastHour"] == 12, "the first left the hour, the fourteenth joined it")
        await harness.stop()
    }

    @Test func anEndKeepsTenOverTheBudget() async throws {
        let (harness, token) = try await Self.harnessWithActivity(["PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR": "0"])
        #expect(try await Self.urgentUpdate(harness, token, 1) == "5")
        try await harness.state("s1", "error")
        #expect(harness.activityPushes(token).last?.header("apns-priority") == "5", "a change into error, over the budget")
        try await harness.state("s2", "idle")
        let end = try #require(harness.activityPushes(token).last)
        #expect(end.payload?["aps"]?["event"] == "end" && end.header("apns-priority") == "10")
        #expect(try await Self.budget(harness) == (try wire(["perHour": 0, "sentLastHour": 1, "demotedLastHour": 2,
                                                              "activities": [["activityId": "act-1", "sentLastHour": 1]]])))
        await harness.stop()
    }

    /// Demotions are counted by the minute: however many the hub causes, the budget holds one
    /// count per minute of the last hour, and a minute leaves the count once it is wholly past.
    @Test func demotionsAreCountedByTheMinuteInBoundedMemory() throws {
        let budget = LiveActivityPriorityBudget(perHour: 0)
        let working = try LiveActivityItem(sessionID: "s1", title: "Build", status: .working, startedAt: Self.started)
        let asking = try LiveActivityItem(sessionID: "s1", title: "Build", status: .permission, startedAt: Self.started)
        let urgent = try #require(LiveActivityContent(previous: [working], next: [asking]))
        let t0: Int64 = 1_764_669_600_000  // the start of a minute
        for n in 0 ..< 3_000 {
            #expect(budget.priority(of: urgent, activity: "act-\(n % 50)", nowMs: t0 + Int64(n) * 40) == 5)
        }
        #expect(budget.demotedMinutesHeld == 2, "3 000 demotions over 120 s, two minutes")
        #expect(budget.status(nowMs: t0 + 120_000)["demotedLastHour"] == 3_000)
        budget.purge(nowMs: t0 + 3_660_000)
        #expect(budget.status(nowMs: t0 + 3_660_000)["demotedLastHour"] == 1_500, "the first minute ended an hour ago")
        #expect(budget.demotedMinutesHeld == 1)
    }

    @Test func theBudgetSettingIsChecked() throws {
        for (name, value) in [("PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR", "-1"), ("PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR", "x"),
                              ("PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS", "86401"),
                              ("PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE", "Pushgate-Activity"),
                              ("PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS", "0"), ("PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS", "3601")] {
            // A home each: a value from the environment is written into settings.json.
            #expect(throws: HostSettingsError.self, "\(name)=\(value)") {
                try HostSettings.load(environment: TemporaryHome().environment([name: value]))
            }
        }
        let settings = try HostSettings.load(environment: TemporaryHome().environment([:]))
        #expect(settings.liveActivity == LiveActivityPolicy(startCooldownSeconds: 600, attributesType: "PushgateActivityAttributes",
                                                            highPriorityPerHour: 12))
        #expect(settings.desktopVisibleTTLSeconds == 60)
    }
}
