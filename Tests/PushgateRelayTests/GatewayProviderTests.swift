import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateStore
import PushgateTesting
@testable import PushgateRelay
import Synchronization

/// orca-gateway.md §12 lines 30–32: the provider requests and the dead-token tables.
@Suite struct GatewayProviderTests {
    // §12 line 30
    @Test func apnsRequestIsExactlyAsSpecified() async throws {
        let harness = try await GatewayHarness(settings: ["APNS_TOPIC": "com.stably.orca.mobile", "COALESCE_MS": "0"])
        let host = try harness.newHost()
        let session = try await harness.handshake(host)
        let token = Hex.encode(SecureRandom.bytes(32)).uppercased()
        let id = try await harness.register(GatewayHarness.device("phone", token: token, environment: "production"), session: session)
        await harness.advance(byMs: 1_234)
        _ = try await harness.send(GatewayHarness.send([id], agentState: nil), session: session)
        await harness.advance(byMs: 0)
        let request = try #require(harness.fake.requests.first)
        #expect(request.status == 200, "the fake accepted it (JWT, topic, headers)")
        #expect(request.method == "POST" && request.path == "/3/device/\(token)")
        #expect(request.header("apns-topic") == "com.stably.orca.mobile")
        #expect(request.header("apns-push-type") == "alert")
        #expect(request.header("apns-priority") == "10")
        #expect(request.header("apns-expiration") == String(harness.clock.nowMilliseconds / 1_000 + 14_400))
        #expect(request.header("apns-collapse-id") == "note-1")
        #expect(request.header("authorization")?.hasPrefix("bearer ") == true)
        let body: JSONValue = [
            "aps": ["alert": ["title": "Agent needs input", "body": "Waiting on your answer"], "sound": "default",
                    "thread-id": .string(host.hostFingerprint)],
            "orca": ["hostFingerprint": .string(host.hostFingerprint), "worktreeId": "wt-1", "notificationId": "note-1",
                     "notificationSeq": 7, "notificationEpoch": "5c9e9a1e-0000-4000-8000-000000000000",
                     "source": "agent-task-complete", "agentState": .null, "coalescedCount": 1],
        ]
        #expect(request.payload == body)
        await harness.stop()
    }

    // §12 line 30: collapse ids are cut to 64 bytes without splitting a character.
    @Test func collapseIdsAreCutOnCharacterBoundaries() {
        func collapseId(_ id: String) -> String {
            GatewayDelivery(registrationId: "r", hostFingerprint: "MAyclgO5Kks57TlY",
                            latest: GatewayNotification(notificationId: id, notificationSeq: 1, notificationEpoch: "e", source: "plugin",
                                                        agentState: nil, title: "t", body: "b", worktreeId: nil),
                            count: 1, anyNeedsInput: false).collapseId
        }
        #expect(collapseId(String(repeating: "a", count: 63) + "é") == String(repeating: "a", count: 63))
        let ascii = String((0..<70).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
        #expect(collapseId(ascii) == String(ascii.prefix(64)))
        #expect(collapseId(String(repeating: "a", count: 62) + "é") == String(repeating: "a", count: 62) + "é")
        #expect(collapseId(String(repeating: "a", count: 61) + "😀") == String(repeating: "a", count: 61))
    }

    // §12 line 30: the environment picks the APNs host; a missing one is production.
    @Test func environmentSelectsTheAPNsService() async throws {
        let channel = RecordingChannel()
        let store = try await SQLiteGatewayStore.open(path: ":memory:")
        let deliverer = GatewayDeliverer(store: store, apns: channel, android: nil,
                                         configuration: GatewayConfiguration(publicURL: GatewayHarness.origin, apnsTopic: "t.opic"),
                                         clock: ManualClock(), counters: GatewayCounters(), logger: Logger(component: "test", sink: Logger.MemorySink()))
        for (index, environment) in ["sandbox", "production"].enumerated() {
            let registration = GatewayDeviceRegistration(hostFingerprint: "fp", deviceId: "d\(index)", platform: "ios",
                                                         token: Hex.encode(SecureRandom.bytes(32)), apnsEnvironment: environment, filterJSON: "{}")
            _ = try await store.registerDevice(registration, newRegistrationId: "r\(index)", nowMs: 1)
            let note = GatewayNotification(notificationId: nil, notificationSeq: 1, notificationEpoch: "e", source: "plugin",
                                           agentState: nil, title: "t", body: "b", worktreeId: nil)
            await deliverer.deliver(GatewayDelivery(registrationId: "r\(index)", hostFingerprint: "fp", latest: note, count: 1, anyNeedsInput: false))
        }
        #expect(channel.environments == [.sandbox, .production])
        #expect(GatewayAPNsRequest.environment(nil) == .production)
        await store.close()
    }

    // §12 line 32 (APNs half)
    @Test func apnsDeadTokenTable() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let session = try await harness.handshake(try harness.newHost())
        let cases: [(ScriptedResponse, Bool)] = [
            (.init(status: 410, reason: .unregistered), true),
            (.init(status: 410, reason: "Whatever"), true),
            (.init(status: 400, reason: .badDeviceToken), true),
            (.init(status: 400, reason: .unregistered), true),
            (.init(status: 400, reason: .deviceTokenNotForTopic), true),
            (.init(status: 400, reason: .payloadTooLarge), false),
            (.init(status: 429, reason: .tooManyRequests), false),
            (.init(status: 500, reason: .internalServerError), false),
        ]
        var ids: [String] = []
        for (index, (script, _)) in cases.enumerated() {
            let token = Hex.encode(SecureRandom.bytes(32))
            ids.append(try await harness.register(GatewayHarness.device("p\(index)", token: token), session: session))
            harness.fake.script(token: token, script)
        }
        _ = try await harness.send(GatewayHarness.send(ids), session: session)
        await harness.advance(byMs: 0)
        let list = try await harness.call("GET", "/v1/devices", session: session)
        #expect(list.json?["devices"]?.arrayValue?.map { $0["dead"]?.boolValue ?? false } == cases.map(\.1))
        #expect(harness.gateway.counter("delivery_dead") == 5 && harness.gateway.counter("delivery_error") == 3)

        // A transport error (the connection dropped) is an error too; the registration stays live.
        let token = Hex.encode(SecureRandom.bytes(32))
        let live = try await harness.register(GatewayHarness.device("dropped", token: token), session: session)
        harness.fake.dropConnections(afterStreams: 0)
        _ = try await harness.send(GatewayHarness.send([live]), session: session)
        await harness.advance(byMs: 0)
        #expect(harness.gateway.counter("delivery_error") == 4)
        #expect(try harness.rows("SELECT dead_at FROM push_devices WHERE registration_id = '\(live)'") == [[nil]])
        await harness.stop()
    }
}

/// A delivery channel that records what it was asked to send and accepts everything.
final class RecordingChannel: DeliveryChannel {
    private let recorded = Mutex<[APNsEnvironment]>([])
    var isReady: Bool { true }
    var environments: [APNsEnvironment] { recorded.withLock { $0 } }
    func deliver(_ notification: APNsNotification, environment: APNsEnvironment) async -> APNsOutcome {
        recorded.withLock { $0.append(environment) }
        return .delivered
    }
    func shutdown() async {}
}
