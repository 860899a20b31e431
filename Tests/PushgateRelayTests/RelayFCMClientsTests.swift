import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateStore
import PushgateTesting
@testable import PushgateRelay
import PushgateTestSupport

/// docs/relay.md "FCM": one FCM client per service account, shared by hapi's Android lane and
/// the gateway's.
@Suite(.hangLimit(.minutes(1))) struct RelayFCMClientsTests {
    static let token = "fcm-token:" + String(repeating: "Ab_1-", count: 20)

    @Test func hapiAndTheGatewayShareOneConnectionAndOneAccessToken() async throws {
        let clock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-fcm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = try HapiPushHarness.serviceAccountObject()
        let fixture = try FakeFCMFixture(account: account, clock: clock, directory: directory.path)
        defer { fixture.fake.stop() }
        var environment = fixture.relayEnvironment
        environment["PUSHGATE_GATEWAY_PUBLIC_URL"] = GatewayHarness.origin
        environment["PUSHGATE_GATEWAY_FCM_PROJECT_ID"] = account["project_id"]?.stringValue
        let configuration = try RelayConfiguration(arguments: ["--dry-run"], environment: environment)
        let gatewaySettings = try #require(configuration.gateway)
        let logger = Logger(component: "relay", minimumLevel: .warning)

        let clients = RelayFCMClients()
        let hapi = try HapiPushLanes.make(configuration, fcmClients: clients, channel: RecordingChannel(), clock: clock, logger: logger)
        let hapiAndroid = try #require(hapi.android)
        let gatewayAndroid = try #require(try gatewaySettings.androidLane(configuration, fcmClients: clients, channel: RecordingChannel(),
                                                                         clock: clock, logger: logger))
        let push = try HapiPushRequest(body: HapiPushHarness.body(platform: "android", token: Self.token))
        let note = GatewayNotification(notificationId: "n", notificationSeq: 1, notificationEpoch: "e", source: "plugin",
                                       agentState: nil, title: "t", body: "b", worktreeId: nil)
        let delivery = GatewayDelivery(registrationId: "r", hostFingerprint: "fp", latest: note, count: 1, anyNeedsInput: false)

        #expect(await hapiAndroid.push(push) == .sent)
        #expect(await gatewayAndroid.send(delivery, token: Self.token) == .sent)
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        #expect(fixture.fake.counters.tokenRequests == 1, "one cached access token for both lanes")

        // The client stays open while a lane still holds it.
        await hapi.shutdown()
        #expect(await gatewayAndroid.send(delivery, token: Self.token) == .sent)
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        await gatewayAndroid.shutdown()
        #expect(fixture.fake.counters.sendRequests == 3)
    }

    @Test func oneClientPerAccountOriginAndTokenURIWhileLeased() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-fcm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try FakeFCMFixture(account: try HapiPushHarness.serviceAccountObject(), clock: ManualClock(), directory: directory.path)
        defer { fixture.fake.stop() }
        let settings = try #require(try RelayConfiguration(arguments: ["--dry-run"], environment: fixture.relayEnvironment).hapi.fcm)
        var otherOrigin = settings
        otherOrigin.origin = FCMConfiguration.googleOrigin
        var otherTokenURI = settings
        otherTokenURI.tokenURI = "https://127.0.0.1:1/token"
        let logger = Logger(component: "relay", minimumLevel: .warning)
        let clients = RelayFCMClients()

        let first = try clients.lease(settings, clock: ManualClock(), logger: logger)
        let second = try clients.lease(settings, clock: ManualClock(), logger: logger)
        let elsewhere = try clients.lease(otherOrigin, clock: ManualClock(), logger: logger)
        let otherExchange = try clients.lease(otherTokenURI, clock: ManualClock(), logger: logger)
        #expect(first.client === second.client)
        #expect(elsewhere.client !== first.client && otherExchange.client !== first.client)

        await first.end()
        await second.end()
        let afterwards = try clients.lease(settings, clock: ManualClock(), logger: logger)
        #expect(afterwards.client !== first.client, "the last lease closed the client")
        for lease in [afterwards, elsewhere, otherExchange] { await lease.end() }
    }
}
