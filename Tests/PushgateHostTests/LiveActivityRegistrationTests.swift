import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 lines 17 and 22: replacement with a signed relay unregister, the cap of 8 per
/// client, 24 h expiry on the scheduler, ownership by client; and the routes' validation.
@Suite(.hangLimit(.minutes(1))) struct LiveActivityRegistrationTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]

    /// Whether the relay still delivers to `token` for this host: a signed update with the host's own key.
    private func relayDelivers(_ token: String, _ harness: HostHarness) async throws -> Bool {
        let client = SignedRelayClient(baseURL: harness.relayURL, key: harness.service.settings.signingKey, clock: harness.clock)
        let push = try LiveActivityPush(tokens: [token], event: .update, contentState: LiveActivityContentState(
            status: .working, eventVersion: 1, updatedAt: harness.clock.nowSeconds))
        harness.clock.advance(milliseconds: 1)
        return try await client.liveActivity(push).results.first?.ok == true
    }

    @Test func newTokenForTheSameActivityReplacesAndUnregistersTheOld() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let old = TestToken.make(), new = TestToken.make()
        try await harness.registerActivity(old, activity: "act-1", session: "s1",
                                           items: [activityRow("s1", "Build", "working", startedAt: 1_764_669_000)])
        #expect(try await relayDelivers(old, harness))
        #expect(try await harness.registerActivity(new, activity: "act-1", session: "s1") == 200)
        // The relay verifies the unregister's signature for real: a 200 here is a valid signature.
        #expect(harness.relayCount("unregister-la") == 1 && harness.relayCount("unregister-la", status: 401) == 0)
        #expect(try await !relayDelivers(old, harness), "the old token is no longer bound to this host")
        #expect(try await relayDelivers(new, harness))
        #expect(try await harness.activity(old) == nil)
        let replacement = try #require(try await harness.activity(new))
        #expect(replacement.rows.map(\.title) == ["Build"], "the new token keeps what the activity showed")
        #expect(replacement.activityId == "act-1" && replacement.client == "phone-1")
        // The same token again is a refresh, not a replacement.
        #expect(try await harness.registerActivity(new, activity: "act-1", session: "s1") == 200)
        #expect(harness.relayCount("unregister-la") == 1)
        await harness.stop()
    }

    @Test func ninthTokenOfAClientEvictsTheOldest() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let tokens = (0..<9).map { _ in TestToken.make() }
        let other = TestToken.make()
        try await harness.registerActivity(other, activity: "act-x", session: "s1", client: "phone-2")
        for (index, token) in tokens.enumerated() {
            harness.scheduler.advance(byMs: 1)
            #expect(try await harness.registerActivity(token, activity: "act-\(index)", session: "s1") == 200)
        }
        #expect(try await harness.activity(tokens[0]) == nil)
        for token in tokens.dropFirst() { #expect(try await harness.activity(token) != nil) }
        #expect(try await harness.activity(other) != nil, "another client's tokens do not count")
        #expect(harness.relayCount("unregister-la") == 1)
        #expect(try await !relayDelivers(tokens[0], harness))
        // Re-registering an old token makes it the newest: the next one evicts the least recently seen.
        harness.scheduler.advance(byMs: 1)
        try await harness.registerActivity(tokens[1], activity: "act-1", session: "s1")
        try await harness.registerActivity(TestToken.make(), activity: "act-9", session: "s1")
        #expect(try await harness.activity(tokens[1]) != nil)
        #expect(try await harness.activity(tokens[2]) == nil)
        await harness.stop()
    }

    @Test func tokenNotSeenForADayExpires() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let stale = TestToken.make(), refreshed = TestToken.make()
        try await harness.registerActivity(stale, activity: "act-1", session: "s1")
        try await harness.registerActivity(refreshed, activity: "act-2", session: "s1")
        harness.scheduler.advance(byMs: LiveActivityEngine.tokenLifetimeMs / 2)
        try await harness.registerActivity(refreshed, activity: "act-2", session: "s1")
        harness.scheduler.advance(byMs: LiveActivityEngine.tokenLifetimeMs / 2 - LiveActivityEngine.expirySweepMs)
        await harness.service.liveActivities.waitUntilIdle()
        #expect(try await harness.activity(stale) != nil, "not yet a day")
        harness.scheduler.advance(byMs: 2 * LiveActivityEngine.expirySweepMs)
        await harness.service.liveActivities.waitUntilIdle()
        #expect(try await harness.activity(stale) == nil)
        #expect(try await harness.activity(refreshed) != nil)
        #expect(harness.relayCount("unregister-la") == 1)
        await harness.stop()
    }

    @Test func onlyTheRegisteringClientCanDeleteOrTakeOver() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let token = TestToken.make()
        try await harness.registerActivity(token, activity: "act-1", session: "s1", client: "phone-1")
        #expect(try await harness.removeActivity([("token", .string(token)), ("client", "phone-2")]) == 403)
        #expect(try await harness.removeActivity([("token", .string(token))]) == 403)
        #expect(try await harness.removeActivity([("activityId", "act-1"), ("client", "phone-2")]) == 200, "not phone-2's activity")
        #expect(try await harness.registerActivity(token, activity: "act-1", session: "s1", client: "phone-2") == 403)
        #expect(try await harness.activity(token)?.client == "phone-1")
        #expect(harness.relayCount("unregister-la") == 0)
        #expect(try await harness.removeActivity([("activityId", "act-1"), ("client", "phone-1")]) == 200)
        #expect(try await harness.activity(token) == nil)
        #expect(harness.relayCount("unregister-la") == 1)
        let second = TestToken.make()
        try await harness.registerActivity(second, activity: "act-2", session: "s1", client: nil)
        #expect(try await harness.removeActivity([("token", .string(second)), ("client", "phone-1")]) == 403)
        #expect(try await harness.removeActivity([("token", .string(second))]) == 200)
        #expect(try await harness.removeActivity([("token", .string(second))]) == 200, "an unknown token: nothing to do")
        #expect(harness.relayCount("unregister-la") == 2)
        await harness.stop()
    }

    @Test func invalidBodiesAreRefusedNamingTheField() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let token = TestToken.make()
        let row = activityRow("s1", "t", "working", startedAt: 1)
        let cases: [(String, String, [(String, JSONValue)], String)] = [
            ("POST", "/api/push/live-activity-token", [("token", "zz"), ("activityId", "a"), ("sessionId", "s")], "token"),
            ("POST", "/api/push/live-activity-token", [("token", .string(token)), ("sessionId", "s")], "activityId"),
            ("POST", "/api/push/live-activity-token", [("token", .string(token)), ("activityId", "a"), ("sessionId", "")], "sessionId"),
            ("POST", "/api/push/live-activity-token", [("token", .string(token)), ("activityId", "a"), ("sessionId", "s"),
                                                       ("items", .array(Array(repeating: row, count: 5)))], "items"),
            ("POST", "/api/push/live-activity-token", [("token", .string(token)), ("activityId", "a"), ("sessionId", "s"),
                                                       ("items", [["sessionID": "s1", "status": "busy", "startedAt": 1]])],
             "items[0].status"),
            ("POST", "/api/push/live-activity-token", [("token", .string(token)), ("activityId", "a"), ("sessionId", "s"),
                                                       ("environment", "staging")], "environment"),
            ("POST", "/api/push/live-activity-token", [("token", .string(token)), ("activityId", "a"), ("sessionId", "s"),
                                                       ("kind", "x")], "kind"),
            ("DELETE", "/api/push/live-activity-token", [("client", "c")], "token"),
            ("DELETE", "/api/push/live-activity-token", [("token", .string(token)), ("activityId", "a")], "activityId"),
            ("PUT", "/api/sessions/s1/state", [("status", "done")], "status"),
            ("PUT", "/api/sessions/s1/state", [("status", "busy"), ("visible", "yes")], "visible"),
            ("PUT", "/api/sessions/s1/state", [("status", "busy"), ("eventVersion", -1)], "eventVersion"),
            ("PUT", "/api/sessions/\(String(repeating: "x", count: 129))/state", [("status", "busy")], "sessionId"),
        ]
        for (method, path, members, field) in cases {
            let answer = try await harness.call(method, path, .object(JSONObject(members)))
            #expect(answer.status == 400 && answer.json?["field"] == .string(field), "\(method) \(path) \(field)")
        }
        #expect(try await harness.call("PUT", "/api/sessions/s1/state", .object(["status": "busy"]), bearer: "").status == 401)
        #expect(try await harness.call("GET", "/api/push/live-activity-token").status == 405)
        #expect(try await harness.service.store.counts().liveActivityTokens == 0)
        await harness.stop()
    }
}
