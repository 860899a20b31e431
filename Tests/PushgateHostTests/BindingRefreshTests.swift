import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/host.md "Lost and aging bindings" against the real relay (every signature verified) and the fake
/// APNs: a registration older than 30 days is made again before the next send; a binding
/// removed behind the host's back comes back through the phone or through the repair, and the
/// push arrives.
@Suite(.hangLimit(.minutes(1))) struct BindingRefreshTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]

    @Test func registrationOlderThanThirtyDaysIsRefreshedBeforeTheSend() async throws {
        try await HostHarness.with(hostEnvironment: Self.noTicks) { harness, token in
            try await harness.register(token)
            #expect(harness.relayCount("register") == 1)
            // The clock alone: the scheduler's jobs are not due to run.
            harness.clock.advance(milliseconds: RelayRegistrations.refreshAfterMs - 1)
            #expect(try await harness.event("error", "s1")["accepted"] == 1)
            #expect(harness.relayCount("register") == 1, "not 30 days old yet")
            harness.clock.advance(milliseconds: 1)
            #expect(try await harness.event("error", "s2")["accepted"] == 1)
            #expect(harness.relayCount("register") == 2, "refreshed before the send")
            #expect(try await harness.event("error", "s3")["accepted"] == 1)
            #expect(harness.relayCount("register") == 2)
            #expect(harness.payloads(token).count == 3)
        }
    }

    @Test func phoneRegisteringAgainRestoresABindingRemovedBehindTheHostsBack() async throws {
        try await HostHarness.with(hostEnvironment: Self.noTicks) { harness, token in
            try await harness.register(token)
            try await harness.unbindBehindTheHostsBack(token)
            try await harness.register(token)
            #expect(harness.relayCount("register") == 2)
            #expect(try await harness.event("error", "s1")["accepted"] == 1)
            #expect(harness.payloads(token).count == 1)
        }
    }

    @Test func bindingRemovedBehindTheHostsBackIsRepairedAndThePushArrives() async throws {
        try await HostHarness.with(hostEnvironment: Self.noTicks) { harness, token in
            try await harness.register(token)
            try await harness.unbindBehindTheHostsBack(token)
            #expect(try await harness.event("error", "s1")["accepted"] == 1)
            #expect(harness.payloads(token).count == 1)
            #expect(harness.relayCount("register") == 2)
        }
    }

    @Test func liveActivityBindingRemovedBehindTheHostsBackIsRepairedAndThePushArrives() async throws {
        try await HostHarness.with(hostEnvironment: Self.noTicks) { harness, token in
            try await harness.registerActivity(token, activity: "act-1", session: "s1",
                                               items: [activityRow("s1", "Build", "working", startedAt: 1_764_669_000)])
            try await harness.unbindBehindTheHostsBack(token, liveActivity: true)
            #expect(try await harness.state("s1", "idle")["accepted"] == 1)
            #expect(harness.activityPushes(token).map { $0.payload?["aps"]?["event"] } == ["end"])
            #expect(harness.relayCount("register-la") == 2)
        }
    }
}
