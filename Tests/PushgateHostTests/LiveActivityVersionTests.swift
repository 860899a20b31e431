import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 line 20: `eventVersion` strictly increases across events and across a restart;
/// a restart in the middle keeps every token, its owner and its rows.
@Suite(.hangLimit(.minutes(1))) struct LiveActivityVersionTests {
    private func versions(_ harness: HostHarness, _ token: String) -> [Int64] {
        harness.activityPushes(token).compactMap { $0.payload?["aps"]?["content-state"]?["eventVersion"]?.int64Value }
    }

    @Test func versionsRiseAcrossEventsTicksAndARestart() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        let started = 1_764_669_000.0
        try await harness.registerActivity(token, activity: "act-1", session: "s1", items: [
            activityRow("s1", "Build", "working", startedAt: started), activityRow("s2", "Test", "working", startedAt: started),
            activityRow("s3", "Lint", "working", startedAt: started),
        ], environment: "sandbox")
        // All in the same millisecond: each push is previous + 1, per session and for `live`.
        _ = try await harness.event("permission", "s1")
        try await harness.state("s2", "idle")
        try await harness.state("s3", "retry")
        await harness.tick()
        let before = versions(harness, token)
        #expect(before.count == 3)
        #expect(before.first.map { $0 >= harness.clock.nowMilliseconds - harness.service.liveActivities.refreshIntervalMs } == true)
        #expect(zip(before, before.dropFirst()).allSatisfy { $0 < $1 })
        // The hub may ask for a version far ahead (its own counter); it is persisted like any other.
        let ahead = harness.clock.nowMilliseconds + 3_600_000
        try await harness.state("s3", "busy", extra: [("eventVersion", .integer(ahead))])
        try await harness.state("s2", "error", extra: [("eventVersion", .integer(ahead))])
        #expect(versions(harness, token).last == ahead, "provided, and above now and every previous version")
        let record = try #require(try await harness.activity(token))
        let home = harness.home
        await harness.stop()

        let restarted = try await HostHarness(home: home)
        #expect(try await restarted.activity(token) == record, "token, owner, environment and rows survive the restart")
        try await restarted.state("s3", "idle")
        let after = versions(restarted, token)
        #expect(after == [ahead + 1], "the version store outlives the process: previous + 1, not now")
        #expect(restarted.relayCount("register-la") == 1, "a new relay URL: the token is registered there before the push")
        #expect(try await restarted.activity(token)?.rows.map(\.status) == [.permission, .error, .complete])
        let stored = try await restarted.service.store.eventVersions()
        #expect(stored["s3"] == ahead + 1 && stored["live"] == ahead + 1 && stored["s2"] == ahead && stored["s1"] == before[0])
        await restarted.stop()
    }

    @Test func importedVersionsAndTokensAreUsedByTheEngine() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let token = TestToken.make()
        let file = home.path + "/apns-tokens.json"
        let json = """
            {"version":2,"liveActivityTokensBySession":{"s1":[{"token":"\(token)","activityId":"act-1","client":"phone-1",
              "items":[{"sessionId":"s1","title":"Build","status":"working","startedAt":1764669000}]}]},
             "liveActivityEventVersions":{"s1":9007199254740000,"live":5}}
            """
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await HostMain.run(arguments: ["import-openchamber", file], environment: home.environment()) == 0)
        let harness = try await HostHarness(hostEnvironment: ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"], home: home)
        try await harness.state("s1", "idle")
        #expect(versions(harness, token) == [9_007_199_254_740_001])
        #expect(try await harness.activity(token) == nil)
        await harness.stop()
    }
}
