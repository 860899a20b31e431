import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateStore
import PushgateTesting
@testable import PushgateRelay
import Synchronization
import PushgateTestSupport

/// protocol/gateway.md §12 lines 30–32: the provider requests and the dead-token tables.
@Suite(.hangLimit(.minutes(1))) struct GatewayProviderTests {
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
        let deliverer = GatewayDeliverer(apns: channel, android: nil,
                                         configuration: GatewayConfiguration(publicURL: GatewayHarness.origin, apnsTopic: "t.opic"),
                                         clock: ManualClock())
        let note = GatewayNotification(notificationId: nil, notificationSeq: 1, notificationEpoch: "e", source: "plugin",
                                       agentState: nil, title: "t", body: "b", worktreeId: nil)
        for (index, environment) in ["sandbox", "production"].enumerated() {
            let device = GatewayDevice(registrationId: "r\(index)", hostFingerprint: "fp", platform: "ios",
                                       token: Hex.encode(SecureRandom.bytes(32)), apnsEnvironment: environment, dead: false)
            let delivery = GatewayDelivery(registrationId: device.registrationId, hostFingerprint: "fp", latest: note, count: 1,
                                           anyNeedsInput: false)
            #expect(await deliverer.send(delivery, to: device) == .sent)
        }
        #expect(channel.environments == [.sandbox, .production])
        #expect(GatewayAPNsRequest.environment(nil) == .production)
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
        #expect(harness.gateway.counter("delivery_dead") == 5 && harness.gateway.counter("delivery_error") == 1)
        #expect(harness.gateway.deliveryAttempts("throttled") == 1 && harness.gateway.deliveryAttempts("unavailable") == 1,
                "429 and 500 wait for a retry")

        // A transport error (the connection dropped) waits for a retry too; the registration stays live.
        let token = Hex.encode(SecureRandom.bytes(32))
        let live = try await harness.register(GatewayHarness.device("dropped", token: token), session: session)
        harness.fake.dropConnections(afterStreams: 0)
        _ = try await harness.send(GatewayHarness.send([live]), session: session)
        await harness.advance(byMs: 0)
        #expect(harness.gateway.counter("delivery_error") == 1)
        #expect(harness.gateway.deliveryAttempts("not_sent") + harness.gateway.deliveryAttempts("unanswered") == 1)
        #expect(try harness.rows("SELECT dead_at FROM push_devices WHERE registration_id = '\(live)'") == [[nil]])
        await harness.stop()
    }
}

/// A delivery channel that records what it was asked to send and accepts everything.
final class RecordingChannel: DeliveryChannel {
    private let recorded = Mutex<[APNsEnvironment]>([])
    var isReady: Bool { true }
    var requestTimeoutMilliseconds: Int64 { 0 }
    var environments: [APNsEnvironment] { recorded.withLock { $0 } }
    func deliver(_ notification: APNsNotification, environment: APNsEnvironment) async -> APNsOutcome {
        recorded.withLock { $0.append(environment) }
        return .delivered
    }
    func shutdown() async {}
}

/// protocol/gateway.md §12 lines 31 and 32 (FCM half): the Android lane against the fake FCM.
@Suite(.hangLimit(.minutes(1))) struct GatewayFCMTests {
    static let fcmToken = "fcm-token:" + String(repeating: "Ab_1-", count: 20)

    // §12 line 31
    @Test func fcmRequestIsExactlyAsSpecified() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0", "ANDROID_CHANNEL_ID": "orca-test"], fcm: true)
        let fcm = try #require(harness.fcm)
        let host = try harness.newHost()
        let session = try await harness.handshake(host)
        let id = try await harness.register(GatewayHarness.device("pixel", token: Self.fcmToken, environment: nil, platform: "android"),
                                            session: session)
        _ = try await harness.send(GatewayHarness.send([id], agentState: nil), session: session)
        await harness.advance(byMs: 0)
        let send = try #require(fcm.sends.first)
        #expect(send.status == 200 && send.path == "/v1/projects/pushgate-test/messages:send")
        let expected: JSONValue = [
            "token": .string(Self.fcmToken),
            "notification": ["title": "Agent needs input", "body": "Waiting on your answer"],
            "android": ["priority": "HIGH", "ttl": "14400s", "collapse_key": "ea503d892f34f0298079b79d21a57e4a",
                        "notification": ["channel_id": "orca-test", "tag": "note-1"]],
            "data": ["hostFingerprint": .string(host.hostFingerprint), "worktreeId": "wt-1", "notificationId": "note-1",
                     "notificationSeq": "7", "notificationEpoch": "5c9e9a1e-0000-4000-8000-000000000000",
                     "source": "agent-task-complete", "coalescedCount": "1"],
        ]
        #expect(send.message.map(JSONValue.object) == expected)
        #expect(harness.gateway.counter("delivery_sent") == 1)

        // Two events before the (zero-length) window's timer runs: one summary under host:<fingerprint>.
        _ = try await harness.send(GatewayHarness.send([id]), session: session)
        _ = try await harness.send(GatewayHarness.send([id], notificationId: "note-2"), session: session)
        await harness.advance(byMs: 0)
        #expect(fcm.sends.count == 2)
        let summary = try #require(fcm.sends.last?.message)
        #expect(summary["notification"] == ["title": "Orca", "body": "2 agents need attention"])
        #expect(summary["android"]?["collapse_key"]?.stringValue == GatewayFCMMessage.collapseKey("host:" + host.hostFingerprint))
        #expect(summary["android"]?["notification"]?["tag"]?.stringValue == "host:" + host.hostFingerprint)
        #expect(summary["data"]?["agentState"] == "needs-input" && summary["data"]?["coalescedCount"] == "2")
        await harness.stop()
    }

    // §12 line 31: the collapse key is hashed, not cut.
    @Test func collapseKeysAreHashes() {
        #expect(GatewayFCMMessage.collapseKey("note-1") == "ea503d892f34f0298079b79d21a57e4a")
        #expect(GatewayFCMMessage.collapseKey("host:MAyclgO5Kks57TlY") == "9277f3553e3fda2d902a943c1720e9b2")
        let long = String(repeating: "x", count: 70)
        #expect(GatewayFCMMessage.collapseKey(long + "1") != GatewayFCMMessage.collapseKey(long + "2"))
        let data = GatewayFCMMessage.data(JSONObject([("a", .integer(7)), ("b", .null), ("c", "s")]))
        #expect(JSONValue.object(data) == ["a": "7", "c": "s"])
    }

    // §12 line 32 (FCM half)
    @Test func fcmDeadTokenTable() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"], fcm: true)
        let fcm = try #require(harness.fcm)
        let session = try await harness.handshake(try harness.newHost())
        let cases: [(FakeFCMError, Bool)] = [
            (FakeFCMError(status: 404, errorStatus: "UNREGISTERED", message: "Requested entity was not found."), true),
            (.unregistered, true),
            (.invalidToken, true),
            (FakeFCMError(status: 400, errorStatus: "INVALID_ARGUMENT", message: "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)",
                          fcmErrorCode: "INVALID_ARGUMENT", fieldViolations: ["message.android.ttl"]), false),
            (.unavailable, false),
        ]
        var ids: [String] = []
        for (index, (error, _)) in cases.enumerated() {
            let token = Self.fcmToken + "\(index)"
            ids.append(try await harness.register(GatewayHarness.device("a\(index)", token: token, environment: nil, platform: "android"),
                                                  session: session))
            fcm.script(token: token, FakeFCMScript(error))
        }
        _ = try await harness.send(GatewayHarness.send(ids), session: session)
        await harness.advance(byMs: 0)
        let list = try await harness.call("GET", "/v1/devices", session: session)
        #expect(list.json?["devices"]?.arrayValue?.map { $0["dead"]?.boolValue ?? false } == cases.map(\.1))
        #expect(harness.gateway.counter("delivery_dead") == 3 && harness.gateway.counter("delivery_error") == 1)
        #expect(harness.gateway.deliveryAttempts("unavailable") == 1, "503 waits for a retry")
        // A transport error (FCM unreachable) waits for a retry too; the registration stays live.
        // The send has a window of its own (the one sent before waits apart for its retry).
        fcm.stop()
        _ = try await harness.send(GatewayHarness.send([ids[4]]), session: session)
        await harness.advance(byMs: 0)
        #expect(harness.gateway.counter("delivery_error") == 1)
        #expect(harness.gateway.deliveryAttempts("not_sent") + harness.gateway.deliveryAttempts("unanswered") == 1)
        #expect(try harness.rows("SELECT dead_at FROM push_devices WHERE registration_id = '\(ids[4])'") == [[nil]])
        await harness.stop()
    }

    @Test func androidWithoutAProjectEndsAsError() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let session = try await harness.handshake(try harness.newHost())
        let id = try await harness.register(GatewayHarness.device("a", token: Self.fcmToken, environment: nil, platform: "android"),
                                            session: session)
        #expect(try await harness.send(GatewayHarness.send([id]), session: session) == ["\(id):queued"])
        await harness.advance(byMs: 0)
        #expect(harness.gateway.counter("delivery_error") == 1)
        await harness.stop()
    }

    @Test func anFCMProjectMustBeTheServiceAccountsOwn() async throws {
        for (settings, fcm) in [(["FCM_PROJECT_ID": "another-project"], true), (["FCM_PROJECT_ID": "pushgate-test"], false)] {
            do {
                let harness = try await GatewayHarness(settings: settings, fcm: fcm)
                Issue.record("started with \(settings)")
                await harness.stop()
            } catch let error as ConfigurationError {
                #expect(error.setting == "PUSHGATE_GATEWAY_FCM_PROJECT_ID")
            }
        }
    }
}
