import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/live-activities.md "Starting by push": a device's push-to-start token, and the start a
/// session turning busy sends it, through host → pushgate-relay (every signature verified) →
/// fake APNs (which checks every member a start needs), on the manual clock.
@Suite(.hangLimit(.minutes(1))) struct PushToStartTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]

    /// The exact start the relay forwards at the clock's current time for session `session`
    /// titled `title`, whose event version is now (a first push).
    static func startPayload(_ harness: HostHarness, session: String, title: String) throws -> JSONValue {
        let row = activityRow(session, title, "working", startedAt: harness.now)
        let state = JSONObject([("status", "working"), ("eventVersion", .integer(harness.clock.nowMilliseconds)),
                                ("updatedAt", .double(harness.now)), ("title", .string(title)), ("workingCount", 1),
                                ("items", [row])])
        let aps = JSONObject([
            ("timestamp", .integer(harness.nowSeconds)), ("event", "start"), ("content-state", .object(state)),
            ("stale-date", .integer(harness.nowSeconds + 1_200)), ("attributes-type", "PushgateActivityAttributes"),
            ("attributes", .object(JSONObject([("sessionId", .string(session))]))),
            ("alert", .object(JSONObject([("title", .string(title)), ("body", "Started working")]))), ("input-push-token", 1),
        ])
        return try wire(.object(JSONObject([("aps", .object(aps))])))
    }

    static func delivery(requests: Int, accepted: Int, failed: Int = 0) throws -> JSONValue {
        try wire(.object(JSONObject([("ok", true), ("requests", .integer(Int64(requests))), ("accepted", .integer(Int64(accepted))),
                                     ("failed", .integer(Int64(failed))), ("dropped", 0), ("queued", 0)])))
    }

    @Test func aStartTokenRegistersAndTheFirstBusySessionStartsAnActivityByPush() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let start = TestToken.make()
        #expect(try await harness.registerStart(start) == 200)
        #expect(harness.relayCount("register-la") == 1, "bound on the relay as a push-to-start token")
        harness.scheduler.advance(byMs: 1_234)

        #expect(try await harness.state("s1", "busy", title: "Build") == (try Self.delivery(requests: 1, accepted: 1)))
        let push = try #require(harness.activityPushes(start).first)
        #expect(push.payload == (try Self.startPayload(harness, session: "s1", title: "Build")))
        #expect(push.apnsHeaders == ["apns-topic: dev.pushgate.tests.push-type.liveactivity", "apns-push-type: liveactivity",
                                     "apns-priority: 10", "apns-expiration: \(harness.nowSeconds + 1_200)"])
        #expect(push.status == 200, "the fake APNs found every member a start needs")
        #expect(try await harness.state("s1", "busy")["requests"] == 0, "busy again is no turn to busy")

        // The started activity reports its update token, registered as any activity's; while it
        // shows, no other session starts one, whatever the cooldown.
        let update = TestToken.make()
        #expect(try await harness.registerActivity(update, activity: "act-1", session: "s1") == 200)
        #expect(try await harness.activity(update)?.rows.map(\.sessionID) == ["s1"])
        harness.scheduler.advance(byMs: 600_000)
        #expect(try await harness.state("s2", "busy")["requests"] == 0, "the device shows an activity")

        // Its end removes the token: the next session to turn busy starts a new activity.
        #expect(try await harness.state("s1", "idle")["accepted"] == 1)
        #expect(try await harness.activity(update) == nil)
        _ = try await harness.state("s2", "idle")
        #expect(try await harness.state("s2", "busy", title: "Test") == (try Self.delivery(requests: 1, accepted: 1)))
        #expect(harness.activityPushes(start).last?.payload?["aps"]?["attributes"] == ["sessionId": "s2"])
        #expect(harness.activityPushes(start).count == 2)
        #expect(harness.leaks([start, update, "Build"]).isEmpty)
        await harness.stop()
    }

    /// One start per device per `PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS` (600), counted
    /// from its last accepted start; each device has its own.
    @Test func theCooldownHoldsPerDevice() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let (first, second) = (TestToken.make(), TestToken.make())
        try await harness.registerStart(first, client: "phone-1")
        #expect(try await harness.state("s1", "busy")["accepted"] == 1)
        harness.scheduler.advance(byMs: 300_000)
        try await harness.registerStart(second, client: "phone-2")
        _ = try await harness.state("s1", "idle")
        #expect(try await harness.state("s2", "busy") == (try Self.delivery(requests: 1, accepted: 1)), "phone-2 only")
        harness.scheduler.advance(byMs: 299_999)
        #expect(try await harness.state("s3", "busy")["requests"] == 0, "phone-1 started 599.999 s ago")
        harness.scheduler.advance(byMs: 1)
        #expect(try await harness.state("s4", "busy") == (try Self.delivery(requests: 1, accepted: 1)), "phone-1 again")
        #expect(harness.activityPushes(first).count == 2 && harness.activityPushes(second).count == 1)
        #expect(harness.activityPushes(second).first?.payload?["aps"]?["attributes"] == ["sessionId": "s2"])
        await harness.stop()
    }

    /// With no cooldown, the relay's own limit still holds: the seventh start of the hour to one
    /// token is refused (429) and sent nowhere.
    @Test func theRelayRefusesTheSeventhStartOfTheHour() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks.merging(
            ["PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS": "0"]) { $1 })
        let token = TestToken.make()
        try await harness.registerStart(token)
        for session in 1...6 {
            #expect(try await harness.state("s\(session)", "busy")["accepted"] == 1)
            harness.scheduler.advance(byMs: 1_000)
        }
        #expect(try await harness.state("s7", "busy") == (try Self.delivery(requests: 1, accepted: 0, failed: 1)))
        #expect(harness.relayCount("live-activity", status: 429) == 1)
        #expect(harness.activityPushes(token).count == 6)
        await harness.stop()
    }

    /// A device's new push-to-start token waits for a start under way with its old one: when the
    /// registration answers, that start is over and has dated the device's cooldown, and the old
    /// token is unbound once, after it, never bound again.
    @Test func aNewTokenWaitsForTheStartUnderWayWithTheOld() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let (old, new) = (TestToken.make(), TestToken.make())
        try await harness.registerStart(old)
        // The provider holds the start for a second of real time; the new token arrives meanwhile.
        harness.fake.script(token: old, .success(afterMilliseconds: 1_000))
        let startedAtMs = harness.clock.nowMilliseconds
        let busy = Task { try await harness.state("s1", "busy") }
        await harness.waitForFake(requests: 1)
        #expect(try await harness.registerStart(new) == 200)
        let stored = try await harness.service.liveActivities.store.startTokens()
        #expect(stored.map(\.token) == [new])
        #expect(stored.first?.lastStartedAtMs == startedAtMs, "the start under way finished first")
        #expect(try await busy.value == (try Self.delivery(requests: 1, accepted: 1)))
        #expect(harness.relayCount("register-la") == 2 && harness.relayCount("unregister-la") == 1)
        #expect(harness.activityPushes(old).count == 1 && harness.activityPushes(new).isEmpty)
        await harness.stop()
    }

    @Test func directAPNsModeSendsTheSameStart() async throws {
        let harness = try await HostHarness(mode: .apns, hostEnvironment: Self.noTicks)
        let start = TestToken.make()
        try await harness.registerStart(start, environment: "sandbox")
        try await harness.state("s1", "busy", title: "Refactor")
        let push = try #require(harness.activityPushes(start).first)
        #expect(push.payload == (try Self.startPayload(harness, session: "s1", title: "Refactor")))
        #expect(push.header("apns-priority") == "10" && push.status == 200)
        await harness.stop()
    }

    @Test func aStartTokenBelongsToItsClient() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let (token, replacement) = (TestToken.make(), TestToken.make())
        #expect(try await harness.registerStart(token, client: nil) == 400, "client is required")
        #expect(try await harness.call("POST", "/api/push/live-activity-token",
                                       ["kind": "update", "token": .string(token), "client": "phone-1"]).status == 400)
        #expect(try await harness.registerStart(token, environment: "staging") == 400)
        #expect(try await harness.registerStart(token) == 200)
        #expect(try await harness.registerStart(token, client: "phone-2") == 403)
        #expect(try await harness.removeActivity([("kind", "start"), ("token", .string(token)), ("client", "phone-2")]) == 403)
        // A new token of the same device replaces the old one, which is unbound on the relay.
        #expect(try await harness.registerStart(replacement) == 200)
        #expect(harness.relayCount("unregister-la") == 1)
        #expect(try await harness.service.liveActivities.store.startTokens().map(\.token) == [replacement])
        #expect(try await harness.removeActivity([("kind", "start"), ("token", .string(replacement)), ("client", "phone-1")]) == 200)
        #expect(harness.relayCount("unregister-la") == 2)
        #expect(try await harness.state("s1", "busy")["requests"] == 0, "no push-to-start token left")
        await harness.stop()
    }
}
