import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/host.md "Desktop presence": a desktop reports the session it shows; for
/// `PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS` (60) unless refreshed, that session's active and
/// passive alerts are held back (`suppressed:"visible"`, not queued), its time-sensitive ones
/// are not. Through the real relay to the fake APNs, on the manual clock.
@Suite(.hangLimit(.minutes(1))) struct DesktopPresenceTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]

    static func report(_ harness: HostHarness, _ body: JSONValue) async throws -> Int {
        try await harness.call("POST", "/api/push/visibility", body).status
    }

    static func desktop(_ session: String, visible: Bool = true) -> JSONValue {
        .object(JSONObject([("visible", .bool(visible)), ("sessionId", .string(session)), ("client", "desktop")]))
    }

    @Test func aVisibleDesktopHoldsBackAReadyButNotAPermissionUntilItsReportLapses() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let iphone = TestToken.make()
        try await harness.register(iphone)
        let reportedAtMs = harness.clock.nowMilliseconds
        #expect(try await Self.report(harness, Self.desktop("s1")) == 200)

        let ready = try await harness.event("ready", "s1")
        #expect(ready["suppressed"] == "visible" && ready["accepted"] == 0 && ready["queued"] == 0 && ready["nativeDelivered"] == false)
        #expect(try await harness.event("update", "s1")["suppressed"] == "visible", "passive too")
        #expect(harness.payloads(iphone).isEmpty)
        #expect(try await harness.event("ready", "s2")["accepted"] == 1, "another session is not held back")
        _ = try await harness.dispatch("permission", "s1", requestId: "r1")
        #expect(harness.payloads(iphone).last?["kind"] == "permission", "time-sensitive reaches the phone")

        harness.scheduler.advance(byMs: reportedAtMs + 59_999 - harness.clock.nowMilliseconds)
        #expect(try await harness.event("ready", "s1")["suppressed"] == "visible")
        harness.scheduler.advance(byMs: 1)
        let lapsed = try await harness.event("ready", "s1")
        #expect(lapsed["suppressed"] == .null && lapsed["accepted"] == 1, "60 s after the report")
        #expect(harness.payloads(iphone).map { $0["kind"] } == ["ready", "permission", "ready"])
        await harness.stop()
    }

    @Test func aReportHoldsWhileRefreshedAndEndsWhenTheDesktopLooksAway() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks.merging(["PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS": "30"]) { $1 })
        let iphone = TestToken.make()
        try await harness.register(iphone)
        #expect(try await Self.report(harness, Self.desktop("s1")) == 200)
        harness.scheduler.advance(byMs: 20_000)
        #expect(try await Self.report(harness, Self.desktop("s1")) == 200)
        harness.scheduler.advance(byMs: 20_000)
        #expect(try await harness.event("error", "s1")["suppressed"] == "visible", "refreshed 20 s ago, a 30 s TTL")
        #expect(try await Self.report(harness, Self.desktop("s1", visible: false)) == 200)
        #expect(try await harness.event("error", "s1")["accepted"] == 1)
        await harness.stop()
    }

    /// Without `client:"desktop"` the route is the app's beacon, as before: it clears the badge
    /// and holds nothing back; a desktop's report leaves the badge alone.
    @Test func theAppsBeaconStillClearsTheBadge() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let iphone = TestToken.make()
        try await harness.register(iphone)
        #expect(try await harness.event("ready", "s1")["badge"] == 1)
        #expect(try await Self.report(harness, Self.desktop("s2")) == 200)
        #expect(try await harness.call("GET", "/api/status").json?["badge"] == 1, "a desktop report does not clear the badge")
        #expect(try await Self.report(harness, ["visible": true, "sessionId": "s1", "client": "phone"]) == 200)
        #expect(try await harness.call("GET", "/api/status").json?["badge"] == 0)
        #expect(try await harness.event("error", "s1")["accepted"] == 1, "the phone's beacon holds nothing back")
        for invalid: JSONValue in [["visible": true, "client": "desktop"], ["visible": true, "sessionId": "s1", "client": "tablet"],
                                   ["sessionId": "s1", "client": "desktop"], ["visible": true, "sessionId": "", "client": "desktop"]] {
            #expect(try await Self.report(harness, invalid) == 400, "\(invalid.serialized())")
        }
        await harness.stop()
    }
}
