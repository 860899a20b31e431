import Foundation
@testable import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 lines 8 and 9 (relay 500), identity rotation, and the relay URL switch.
@Suite(.hangLimit(.minutes(1))) struct RegistrationTests {
    @Test func failedRegistrationIsSkippedThenRetriedAndSuccessIsCached() async throws {
        // The relay holds one token at most, so the second registration fails until the first is gone.
        let harness = try await HostHarness(relaySettings: ["MAX_TOKENS": "1"])
        let first = TestToken.make(), second = TestToken.make()
        try await harness.register(first)
        try await harness.register(second)
        #expect(harness.relayCount("register") == 1)
        let blocked = try await harness.event("error", "s1")
        #expect(blocked["accepted"] == 1 && blocked["failed"] == 1)
        #expect(harness.payloads(second).isEmpty)
        #expect(harness.relayCount("register") == 1, "the cached registration is not repeated")
        #expect(harness.relayCount("register", status: 429) == 2)
        #expect(try await harness.call("DELETE", "/api/push/apns-token", .object(JSONObject([("token", .string(first))]))).status == 200)
        #expect(harness.relayCount("unregister") == 1)
        let retried = try await harness.event("error", "s2")
        #expect(retried["accepted"] == 1 && retried["failed"] == 0)
        #expect(harness.payloads(second).count == 1)
        #expect(harness.relayCount("register") == 2)
        let home = harness.home
        await harness.stop()

        // Another relay URL: the cache no longer counts, the token is registered there first.
        let moved = try await HostHarness(home: home)
        #expect(moved.relayCount("register") == 0)
        #expect(try await moved.event("error", "s3")["accepted"] == 1)
        #expect(moved.relayCount("register") == 1)
        #expect(try await moved.event("update", "s3")["accepted"] == 1)
        #expect(moved.relayCount("register") == 1)
        await moved.stop()
    }

    @Test func identityRotationReRegistersEveryToken() async throws {
        let harness = try await HostHarness()
        let tokens = [TestToken.make(), TestToken.make()]
        for token in tokens { try await harness.register(token) }
        #expect(harness.relayCount("register") == 2)
        let oldServerId = harness.service.settings.serverId
        let key = try HostSettings.rotateIdentity(in: harness.service.settings.file)
        let settings = try HostSettings.load(environment: harness.home.environment(["PUSHGATE_PUSH_RELAY_URL": harness.relayURL]))
        #expect(settings.serverId == key.publicKey.serverId && settings.serverId != oldServerId)
        let rotated = try HostService(settings: settings, scheduler: harness.scheduler, logger: Logger(component: "t", minimumLevel: .error),
                                      titles: try Fixtures.titles())
        let outcome = try await rotated.reregisterAll()
        #expect(outcome.registered == 2 && outcome.total == 2)
        #expect(harness.relayCount("register") == 4)
        #expect(await rotated.handle(HostEvent(type: .error, sessionId: "s1")).accepted == 2)
        await rotated.shutdown()
        await harness.stop()
    }

    @Test func relay500KeepsTokensAndOtherBatchesGo() async throws {
        let stub = try StubRelay(failTitles: ["Une erreur s'est produite"])
        let harness = try await HostHarness(relayURL: stub.url)
        let english = TestToken.make(), french = TestToken.make()
        try await harness.register(english, locale: "en")
        try await harness.register(french, locale: "fr")
        let result = try await harness.event("error", "s1")
        #expect(result["accepted"] == 1 && result["failed"] == 1 && result["dropped"] == 0)
        #expect(stub.sends.count == 2)
        #expect(Set(try await harness.service.store.alertTokens().map(\.token)) == [english, french])
        #expect(harness.logs.lines.contains { $0.contains("relay refused a send batch") })
        await harness.stop()
        stub.stop()
    }
}
