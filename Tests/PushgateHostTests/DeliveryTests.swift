import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 lines 5, 6, 7, 9 (drop), 10, 13 and 16: host ↔ real relay ↔ fake APNs.
@Suite(.hangLimit(.minutes(1))) struct DeliveryTests {
    @Test func readyEventReachesTheRelayAsOneSignedSend() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.register(token, locale: "zh-Hant-TW")
        let result = try await harness.event("ready", "s1", name: "  Refactor auth  ", extra: [("eventId", "hub-7")])
        #expect(result == .object(JSONObject([("eventId", "hub-7"), ("accepted", 1), ("failed", 0), ("dropped", 0),
                                              ("suppressed", .null), ("badge", 1), ("nativeDelivered", true), ("queued", 0)])))
        let payloads = harness.payloads(token)
        #expect(payloads.count == 1)
        #expect(payloads.first?["aps"]?["alert"]?["title"] == "任務已完成")
        #expect(payloads.first?["aps"]?["alert"]?["body"] == "Refactor auth")
        #expect(payloads.first?["aps"]?["badge"] == 1)
        #expect(payloads.first?["aps"]?["thread-id"] == "ready-s1")
        #expect(payloads.first?["sessionId"] == "s1")
        #expect(payloads.first?["eventId"] == "hub-7")
        #expect(harness.fake.requests.first?.header("apns-collapse-id") == "ready-s1")
        #expect(harness.relayCount("send") == 1)
        #expect(harness.leaks([token, "任務已完成", "Refactor auth"]).isEmpty)
        await harness.stop()
    }

    @Test func threeLocalesThreeBatchesSameBadge() async throws {
        let harness = try await HostHarness()
        let tokens = [("en-US", TestToken.make()), ("fr-FR", TestToken.make()), ("pt", TestToken.make())]
        for (locale, token) in tokens { try await harness.register(token, locale: locale) }
        let result = try await harness.event("question", "s1", name: "n")
        #expect(result["pending"] == true)
        harness.scheduler.advance(byMs: EventThrottle.debounceMs)
        await harness.service.waitForScheduledDispatches()
        let titles = tokens.map { harness.payloads($0.1).first?["aps"]?["alert"]?["title"]?.stringValue }
        #expect(titles == ["Needs your answer", "Besoin de votre réponse", "Precisa da sua resposta"])
        #expect(tokens.map { harness.payloads($0.1).first?["aps"]?["badge"] } == [1, 1, 1])
        #expect(harness.fake.requests.count == 3)
        #expect(harness.relayCount("send") == 3)
        await harness.stop()
    }

    @Test func hundredAndOneTokensGoInTwoBatchesEachOnce() async throws {
        let harness = try await HostHarness()
        let tokens = (0..<101).map { _ in TestToken.make() }
        for token in tokens { try await harness.register(token, locale: "en") }
        let result = try await harness.event("error", "s1")
        #expect(result["accepted"] == 101)
        #expect(harness.fake.requests.count == 101)
        #expect(Set(harness.fake.requests.compactMap(\.deviceToken)) == Set(tokens))
        #expect(harness.relayCount("send") == 2)
        await harness.stop()
    }

    @Test func dropDeletesTheTokenLocally() async throws {
        let harness = try await HostHarness()
        let dead = TestToken.make(), alive = TestToken.make()
        try await harness.register(dead)
        try await harness.register(alive)
        harness.fake.script(token: dead, .unregistered)
        let result = try await harness.event("error", "s1")
        #expect(result["accepted"] == 1 && result["dropped"] == 1)
        #expect(try await harness.service.store.alertTokens().map(\.token) == [alive])
        await harness.stop()
    }

    @Test func badgeCountsTagsClearsOnViewAndSurvivesRestart() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.register(token)
        #expect(try await harness.event("ready", "s1")["badge"] == 1)
        _ = try await harness.event("question", "s1")
        harness.scheduler.advance(byMs: EventThrottle.readyCooldownMs)
        await harness.service.waitForScheduledDispatches()
        #expect(try await harness.event("ready", "s1")["badge"] == 2)
        #expect(harness.payloads(token).map { $0["aps"]?["badge"] } == [1, 2, 2])
        #expect(try await harness.call("POST", "/api/sessions/s1/view").status == 200)
        harness.scheduler.advance(byMs: EventThrottle.readyCooldownMs)
        #expect(try await harness.event("ready", "s1")["badge"] == 1)
        #expect(try await harness.call("POST", "/api/sessions/s1/message-sent").status == 200)
        #expect(try await harness.event("error", "s1")["badge"] == 1)
        #expect(try await harness.call("POST", "/api/push/visibility", .object(JSONObject([("visible", false)]))).status == 200)
        #expect(try await harness.event("update", "s1")["badge"] == 2)
        let home = harness.home
        await harness.stop()
        let restarted = try await HostHarness(home: home)
        #expect(try await restarted.service.store.badgeCount() == 2)
        #expect(try await restarted.call("POST", "/api/push/visibility", .object(JSONObject([("visible", true)]))).status == 200)
        #expect(try await restarted.service.store.badgeCount() == 0)
        await restarted.stop()
    }

    @Test func childAndSystemSessionsAreSuppressed() async throws {
        let harness = try await HostHarness()
        try await harness.register(TestToken.make())
        let child = try await harness.event("ready", "c1", extra: [("parentSessionId", "p1")])
        let system = try await harness.event("error", "x1", extra: [("system", true)])
        #expect(child["suppressed"] == "child" && child["nativeDelivered"] == false)
        #expect(system["suppressed"] == "system")
        _ = try await harness.event("ready", "s1")
        let cooled = try await harness.event("ready", "s1")
        #expect(cooled["suppressed"] == "cooldown")
        #expect(harness.fake.requests.count == 1)
        await harness.stop()
    }

    @Test func nativeDeliveredOnlyWhenASendWasAccepted() async throws {
        let harness = try await HostHarness()
        #expect(try await harness.event("error", "s1")["nativeDelivered"] == false)
        let first = TestToken.make(), second = TestToken.make()
        try await harness.register(first)
        try await harness.register(second)
        harness.fake.script(token: first, ScriptedResponse(status: 500, reason: .internalServerError))
        harness.fake.script(token: second, ScriptedResponse(status: 500, reason: .internalServerError))
        let allFailed = try await harness.event("error", "s2")
        #expect(allFailed["nativeDelivered"] == false && allFailed["failed"] == 2)
        harness.fake.clearScripts()
        harness.fake.script(token: second, ScriptedResponse(status: 500, reason: .internalServerError))
        let one = try await harness.event("error", "s3")
        #expect(one["nativeDelivered"] == true && one["accepted"] == 1 && one["failed"] == 1)
        #expect(try await harness.service.store.alertTokens().count == 2)
        await harness.stop()
    }
}
