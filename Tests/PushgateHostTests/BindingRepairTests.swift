import Foundation
@testable import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// Issue 16 item 6 against a stub relay that answers `reason:"not_bound"`: a lost binding is
/// registered again and the token retried in the same delivery, at most once per token per
/// 10 minutes; a `binding_limit` refusal waits as long; a phone's registration always reaches
/// the relay; the Live Activity transport repairs the same way. Manual clock, no ticks.
@Suite(.hangLimit(.minutes(1))) struct BindingRepairTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]
    static let minuteMs: Int64 = 60_000

    @Test func lostBindingIsRegisteredAgainAndRetriedInTheSameEvent() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, lost in
            let kept = TestToken.make()
            try await harness.register(lost)
            try await harness.register(kept)
            stub.unbind(lost)
            let result = try await harness.event("error", "s1")
            #expect(result["accepted"] == 2 && result["failed"] == 0 && result["nativeDelivered"] == true)
            #expect(stub.registrations(lost) == 2 && stub.registrations(kept) == 1)
            #expect(stub.sends.count == 2)
            #expect(stub.sends.last?["tokens"] == .array([.string(lost)]), "only the repaired token is sent again")
            #expect(stub.sends.last?["badge"] == 1, "the retry is the same push")
            // Repaired and cached: the next event neither registers nor retries.
            #expect(try await harness.event("error", "s2")["accepted"] == 2)
            #expect(stub.registrations(lost) == 2 && stub.sends.count == 3)
            #expect(harness.logs.lines.contains { $0.contains("relay no longer binds tokens to this host") })
            #expect(harness.leaks([lost, kept]).isEmpty)
        }
    }

    @Test func aBindingLostAgainWithinTenMinutesWaitsForTheNextWindow() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, token in
            try await harness.register(token)
            stub.unbind(token)
            #expect(try await harness.event("error", "s1")["accepted"] == 1)
            #expect(stub.registrations(token) == 2)

            harness.clock.advance(milliseconds: 9 * Self.minuteMs)
            stub.unbind(token)
            let again = try await harness.event("error", "s2")
            #expect(again["accepted"] == 0 && again["failed"] == 1)
            #expect(stub.registrations(token) == 2, "one repair per token per 10 minutes")
            #expect(try await harness.event("error", "s3")["failed"] == 1)
            #expect(stub.registrations(token) == 2 && stub.sends.count == 3, "held and no longer cached: neither registered nor sent")

            harness.clock.advance(milliseconds: Self.minuteMs)
            #expect(try await harness.event("error", "s4")["accepted"] == 1)
            #expect(stub.registrations(token) == 3)
        }
    }

    @Test func bindingLimitIsNotRetriedForTenMinutes() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, token in
            try await harness.register(token)
            stub.refuseRegistrations((429, "binding_limit"))
            stub.unbind(token)
            let refused = try await harness.event("error", "s1")
            #expect(refused["accepted"] == 0 && refused["failed"] == 1)
            #expect(stub.registrations(token) == 2)
            #expect(harness.logs.lines.contains { $0.contains("bound to too many hosts") })

            harness.clock.advance(milliseconds: 10 * Self.minuteMs - 1)
            #expect(try await harness.event("error", "s2")["failed"] == 1)
            #expect(stub.registrations(token) == 2 && stub.sends.count == 1)

            stub.refuseRegistrations(nil)
            harness.clock.advance(milliseconds: 1)
            #expect(try await harness.event("error", "s3")["accepted"] == 1)
            #expect(stub.registrations(token) == 3)
            #expect(harness.leaks([token]).isEmpty)
        }
    }

    @Test func aPhoneRegisteringAgainAlwaysReachesTheRelay() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, token in
            try await harness.register(token)
            try await harness.register(token)
            #expect(stub.registrations(token) == 2, "cached, and registered again all the same")

            // Held after a refused repair: the phone's registration does not wait for the hold.
            stub.refuseRegistrations((429, "binding_limit"))
            stub.unbind(token)
            #expect(try await harness.event("error", "s1")["failed"] == 1)
            stub.refuseRegistrations(nil)
            try await harness.register(token)
            #expect(stub.registrations(token) == 4)
            #expect(try await harness.event("error", "s2")["accepted"] == 1)
        }
    }

    @Test func liveActivityTransportRepairsTheSameWay() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, token in
            let row = activityRow("s1", "Build", "working", startedAt: 1_764_669_000)
            try await harness.registerActivity(token, activity: "act-1", session: "s1", items: [row])
            try await harness.registerActivity(token, activity: "act-1", session: "s1")
            #expect(stub.registrations(token, "register-live-activity-token") == 2, "a phone's registration always reaches the relay")
            stub.unbind(token, kind: "liveactivity")
            let answer = try await harness.state("s1", "idle")
            #expect(answer["accepted"] == 1 && answer["failed"] == 0)
            #expect(stub.registrations(token, "register-live-activity-token") == 3)
            let pushes = stub.requests("live-activity")
            #expect(pushes.count == 2 && pushes.map { $0["tokens"] } == [.array([.string(token)]), .array([.string(token)])])
            #expect(pushes.map { $0["event"] } == ["end", "end"], "the retry is the same push")
            #expect(try await harness.activity(token) == nil, "an accepted end removes the token")
            #expect(stub.registrations(token) == 0, "no alert registration for a Live Activity token")
            #expect(harness.leaks([token]).isEmpty)
        }
    }
}
