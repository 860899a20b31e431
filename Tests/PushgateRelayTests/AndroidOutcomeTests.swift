import Foundation
import PushgateCore
import PushgateTestSupport
import PushgateTesting
import Testing

/// What becomes of Android tokens of the signed routes, through the `pushgate-relay` binary, the
/// fake APNs and the fake FCM: unregistering, FCM's answers as result rows (docs/relay.md
/// "Android tokens", "Send results", "Retries"), the alert settings on the wire, the limits of
/// a `send`, and a relay restarted without its Android account.
@Suite(.serialized, .hangLimit(.minutes(1))) struct AndroidOutcomeTests {
    @Test func anAndroidUnregisterRemovesOnlyThisHostsAndroidBinding() async throws {
        let chain = try await AndroidChain.start()
        let (leaving, staying, iPhoneHost) = (OpenChamberHost(key: P256PrivateKey()), OpenChamberHost(key: P256PrivateKey()),
                                              OpenChamberHost(key: P256PrivateKey()))
        // An APNs-shaped string is a valid FCM token too: one string bound both ways.
        let token = TestToken.make()
        for host in [leaving, staying] {
            #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        }
        #expect(try await chain.post("/v1/push/register-token", iPhoneHost.register(token, platform: "ios")).status == 200)

        let unregistered = try await chain.post("/v1/push/unregister-token", Self.unregister(token, platform: "android", by: leaving))
        #expect(unregistered.status == 200 && unregistered.json == #"{"ok":true}"#)

        let gone = try await chain.post("/v1/push/send", leaving.send(tokens: [token], title: "Agent finished"))
        #expect(gone.json == #"{"results":[{"token":"\#(token)","ok":false,"reason":"not_bound","retryable":true}]}"#)
        let viaAPNs = try await chain.post("/v1/push/send", iPhoneHost.send(tokens: [token], title: "Agent finished"))
        #expect(viaAPNs.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        let viaFCM = try await chain.post("/v1/push/send", staying.send(tokens: [token], title: "Agent finished"))
        #expect(viaFCM.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        #expect(chain.apns.requests.map(\.deviceToken) == [token])
        #expect(chain.fcm.sends.map(\.deviceToken) == [token], "only the other Android host's send")
        try await chain.stop()
    }

    /// An `INVALID_ARGUMENT` about another field faults the message, not the token.
    @Test func invalidArgumentNotNamingTheTokenIsRefusedAndTheBindingKept() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        let badData = FakeFCMError(status: 400, errorStatus: "INVALID_ARGUMENT", message: "Invalid value at 'message.data'",
                                   fcmErrorCode: "INVALID_ARGUMENT", fieldViolations: ["message.data"])
        chain.fcm.script(token: token, sequence: [FakeFCMScript(badData), FakeFCMScript(nil)])
        let refused = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent finished"))
        #expect(refused.json == #"{"results":[{"token":"\#(token)","ok":false,"reason":"refused","retryable":false}]}"#)
        let next = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent failed"))
        #expect(next.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        #expect(chain.fcm.sends.count == 2, "a refusal is not retried")
        try await chain.stop()
    }

    /// A 429 is the device's pace: never retried by the relay, its `Retry-After` passed on.
    @Test func quotaExceededIsTransientWithRetryAfterAndTheBindingKept() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        chain.fcm.script(token: token, sequence: [FakeFCMScript(.quotaExceeded, retryAfterSeconds: 30), FakeFCMScript(nil)])
        let throttled = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent finished"))
        #expect(throttled.json
            == #"{"results":[{"token":"\#(token)","ok":false,"reason":"transient","retryable":true,"retryAfter":30}]}"#)
        #expect(chain.fcm.sends.count == 1)
        let next = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent failed"))
        #expect(next.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        try await chain.stop()
    }

    @Test func unavailableOnceIsRetriedWithinTheRequest() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        chain.fcm.script(token: token, sequence: [FakeFCMScript(.unavailable), FakeFCMScript(nil)])
        let sent = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent finished"))
        #expect(sent.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        #expect(chain.fcm.sends.map(\.status) == [503, 200])
        try await chain.stop()
    }

    /// Live Activities are ActivityKit's: an Android account on the relay does not open them to `android`.
    @Test func theLiveActivityRoutesRefuseAndroidWithAnAccountSet() async throws {
        let chain = try await AndroidChain.start()
        let ts = Int64(Date().timeIntervalSince1970 * 1000)
        var object = try #require(try JSONValue.parse(
            RelayRequestSigner(key: P256PrivateKey()).liveActivityToken(AndroidChain.fcmToken(), ts: ts)).objectValue)
        object["platform"] = "android"
        for path in ["/v1/push/register-live-activity-token", "/v1/push/unregister-live-activity-token"] {
            let refused = try await chain.post(path, JSONValue.object(object).serializedBytes())
            #expect(refused.status == 400 && refused.json == #"{"error":"unsupported_platform"}"#, "\(path)")
        }
        try await chain.stop()
    }

    @Test func thePackageNameAndChannelSettingsReachTheMessage() async throws {
        let chain = try await AndroidChain.start(settings: ["PUSHGATE_RELAY_ANDROID_PACKAGE_NAME": "dev.example.app",
                                                            "PUSHGATE_RELAY_ANDROID_CHANNEL_ID": "agents"])
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        let sent = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent finished"))
        #expect(sent.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        let android = try #require(chain.fcm.sends.first?.message?["android"])
        #expect(android["restricted_package_name"] == "dev.example.app")
        #expect(android["notification"]?["channel_id"] == "agents")
        try await chain.stop()
    }

    /// FCM tokens run to 512 characters; a `send` body to 64 KiB (docs/relay.md "Order of checks").
    @Test func aSendTakes512CharacterTokensAndA64KiBBody() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let longest = String((AndroidChain.fcmToken() + String(repeating: "x", count: 512)).prefix(512))
        #expect(try await chain.post("/v1/push/register-token", host.register(longest, platform: "android")).status == 200)
        let sent = try await chain.post("/v1/push/send", host.send(tokens: [longest], title: "Agent finished"))
        #expect(sent.json == #"{"results":[{"token":"\#(longest)","ok":true}]}"#)

        let tooLong = try await chain.post("/v1/push/send", host.send(tokens: [longest + "x"], title: "Agent finished"))
        #expect(tooLong.status == 400 && tooLong.json == #"{"error":"invalid_request"}"#)

        // JSON allows whitespace after the value: the body is the cap exactly, still a valid send.
        let body = try host.send(tokens: [longest], title: "Agent failed")
        let padded = body + [UInt8](repeating: 0x20, count: 64 * 1024 - body.count)
        let atTheCap = try await chain.post("/v1/push/send", padded)
        #expect(atTheCap.status == 200 && atTheCap.json == #"{"results":[{"token":"\#(longest)","ok":true}]}"#)
        #expect(chain.fcm.sends.count == 2)
        try await chain.stop()
    }

    /// Android bindings outlive the account that served them: after a restart without it, a
    /// host can still remove them, and a send answers them `refused` while its iOS tokens go out.
    @Test func aRelayRestartedWithoutItsAndroidAccount() async throws {
        let directory = try TemporaryDirectory.create("android-restart")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Outside either chain's own directory, which its stop removes.
        let database = ["PUSHGATE_RELAY_DATABASE_PATH": directory.appendingPathComponent("relay.sqlite").path]
        let host = OpenChamberHost(key: P256PrivateKey())
        let iosToken = TestToken.make(), kept = AndroidChain.fcmToken(), removed = AndroidChain.fcmToken()

        let before = try await AndroidChain.start(settings: database)
        for (token, platform) in [(iosToken, "ios"), (kept, "android"), (removed, "android")] {
            #expect(try await before.post("/v1/push/register-token", host.register(token, platform: platform)).status == 200)
        }
        try await before.stop()

        let after = try await AndroidChain.start(settings: database, androidAccount: false)
        let sent = try await after.post("/v1/push/send", host.send(tokens: [iosToken, kept], title: "Agent finished"))
        #expect(sent.json == #"{"results":[{"token":"\#(iosToken)","ok":true},{"token":"\#(kept)","ok":false,"reason":"refused","retryable":false}]}"#)
        #expect(after.apns.requests.map(\.deviceToken) == [iosToken])

        let unregistered = try await after.post("/v1/push/unregister-token", Self.unregister(removed, platform: "android", by: host))
        #expect(unregistered.status == 200 && unregistered.json == #"{"ok":true}"#, "\(unregistered.status) \(unregistered.json)")
        // Gone, not merely refused: the binding itself was removed.
        let afterwards = try await after.post("/v1/push/send", host.send(tokens: [removed], title: "Agent failed"))
        #expect(afterwards.json == #"{"results":[{"token":"\#(removed)","ok":false,"reason":"not_bound","retryable":true}]}"#)
        #expect(after.fcm.sends.isEmpty)
        try await after.stop()
    }

    /// `unregister-token` signed over `ts.token.platform.unregister`, as a host sends it.
    private static func unregister(_ token: String, platform: String, by host: OpenChamberHost) throws -> [UInt8] {
        try RelayRequestSigner(key: host.key).unregisterToken(token, platform: platform, ts: Int64(Date().timeIntervalSince1970 * 1000))
    }
}
