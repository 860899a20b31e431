import Foundation
import PushgateCore
import PushgateRelay
import PushgateTestSupport
import PushgateTesting
import Testing

/// OpenChamber's host registering an iOS and an Android token and sending to both with one
/// signed `send`, through the `pushgate-relay` binary, the fake APNs and the fake FCM
/// (docs/relay.md "Android tokens"). The bodies are built as OpenChamber's
/// `packages/web/server/lib/notifications/apns-runtime.js` builds them at commit
/// 55acca26b522b478ad89f3b2c73b38a5627b8515 (`registerTokenWithRelay`, `sendViaRelay`): the
/// same members in the same order, `JSON.stringify` of a Node object.
@Suite(.serialized, .hangLimit(.minutes(1))) struct AndroidTokenTests {
    @Test func oneSendReachesTheIPhoneThroughAPNsAndTheAndroidPhoneThroughFCM() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let iosToken = TestToken.make(), androidToken = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(iosToken, platform: "ios")).status == 200)
        #expect(try await chain.post("/v1/push/register-token", host.register(androidToken, platform: "android")).status == 200)

        let sent = try await chain.post("/v1/push/send", host.send(
            tokens: [iosToken, androidToken], title: "Agent finished", body: "refactor-auth", badge: 3,
            collapseId: "ready-s1", data: [("sessionId", "s1")]))
        #expect(sent.status == 200)
        #expect(sent.json == #"{"results":[{"token":"\#(iosToken)","ok":true},{"token":"\#(androidToken)","ok":true}]}"#)

        #expect(chain.apns.requests.map(\.deviceToken) == [iosToken])
        let fcmSends = chain.fcm.sends
        #expect(fcmSends.map(\.deviceToken) == [androidToken])
        let message = try #require(fcmSends.first?.message)
        #expect(message["notification"] == .object(JSONObject([("title", "Agent finished"), ("body", "refactor-auth")])))
        #expect(message["data"] == .object(JSONObject([("sessionId", "s1")])))
        let android = try #require(message["android"]?.objectValue)
        #expect(android["priority"] == "HIGH")
        #expect(android["ttl"] == "3600s")
        #expect(android["collapse_key"] == nil, "FCM keeps four collapse keys per device and drops the rest")
        #expect(android["notification"] == .object(JSONObject([("channel_id", "default"), ("tag", "ready-s1"), ("notification_count", 3)])))
        try await chain.stop()
    }

    @Test func aTokenFCMReportsUnregisteredIsDroppedAndItsBindingsAreGone() async throws {
        let chain = try await AndroidChain.start()
        let (first, second) = (OpenChamberHost(key: P256PrivateKey()), OpenChamberHost(key: P256PrivateKey()))
        let gone = AndroidChain.fcmToken()
        for host in [first, second] {
            #expect(try await chain.post("/v1/push/register-token", host.register(gone, platform: "android")).status == 200)
        }
        chain.fcm.script(token: gone, FakeFCMScript(.unregistered))
        let dropped = try await chain.post("/v1/push/send", first.send(tokens: [gone], title: "Agent failed"))
        #expect(dropped.json == #"{"results":[{"token":"\#(gone)","ok":false,"drop":true,"reason":"dead","retryable":false}]}"#)
        // Every host's binding went, not only the sender's: the other host is told to register again.
        let after = try await chain.post("/v1/push/send", second.send(tokens: [gone], title: "Agent failed"))
        #expect(after.json == #"{"results":[{"token":"\#(gone)","ok":false,"reason":"not_bound","retryable":true}]}"#)
        #expect(chain.fcm.sends.count == 1)
        try await chain.stop()
    }

    /// Bindings are keyed by platform: a string bound as Android first blocks nobody's iOS
    /// binding of it, and each host's send goes where its own binding says.
    @Test func bindingAnIPhonesTokenAsAndroidFirstDoesNotBlockIt() async throws {
        let chain = try await AndroidChain.start()
        let (squatter, owner) = (OpenChamberHost(key: P256PrivateKey()), OpenChamberHost(key: P256PrivateKey()))
        let iosToken = TestToken.make()
        #expect(try await chain.post("/v1/push/register-token", squatter.register(iosToken, platform: "android")).status == 200)
        #expect(try await chain.post("/v1/push/register-token", owner.register(iosToken, platform: "ios")).status == 200)
        let sent = try await chain.post("/v1/push/send", owner.send(tokens: [iosToken], title: "Agent finished"))
        #expect(sent.json == #"{"results":[{"token":"\#(iosToken)","ok":true}]}"#)
        #expect(chain.apns.requests.map(\.deviceToken) == [iosToken])
        // The squatter's send goes to FCM, which refuses the APNs token: only its own binding goes.
        chain.fcm.script(token: iosToken, FakeFCMScript(.invalidToken))
        let refused = try await chain.post("/v1/push/send", squatter.send(tokens: [iosToken], title: "Agent finished"))
        #expect(refused.json == #"{"results":[{"token":"\#(iosToken)","ok":false,"drop":true,"reason":"dead","retryable":false}]}"#)
        let again = try await chain.post("/v1/push/send", owner.send(tokens: [iosToken], title: "Agent failed"))
        #expect(again.json == #"{"results":[{"token":"\#(iosToken)","ok":true}]}"#)
        #expect(chain.apns.requests.count == 2)
        try await chain.stop()
    }

    /// A relay whose Android account belongs to another Firebase project: refused, kept.
    @Test func senderIdMismatchIsRefusedAndTheBindingKept() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        chain.fcm.script(token: token, sequence: [FakeFCMScript(.senderIdMismatch), FakeFCMScript(nil)])
        let refused = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent finished"))
        #expect(refused.json == #"{"results":[{"token":"\#(token)","ok":false,"reason":"refused","retryable":false}]}"#)
        let next = try await chain.post("/v1/push/send", host.send(tokens: [token], title: "Agent failed"))
        #expect(next.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        try await chain.stop()
    }

    /// `--dry-run` accepts Android registrations and writes Android deliveries beside iOS ones,
    /// every token redacted.
    @Test func dryRunWritesAndroidDeliveriesLikeIOSOnes() async throws {
        let (dryRun, chain, host, iosToken, androidToken) = try await DryRunRelay.withBothPlatformsBound()
        let sent = try await chain.post("/v1/push/send", host.send(tokens: [iosToken, androidToken], title: "Agent finished"))
        #expect(sent.json == #"{"results":[{"token":"\#(iosToken)","ok":true},{"token":"\#(androidToken)","ok":true}]}"#)
        let text = try await dryRun.stop()
        #expect(!text.contains(androidToken) && !text.contains(iosToken))
        let lines = try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(Set(lines.compactMap { $0["token"]?.stringValue }) == [Redact.token(iosToken), Redact.token(androidToken)])
        let android = try #require(lines.first { $0["platform"] == "android" })
        #expect(android["message"]?["notification"] == .object(JSONObject([("title", "Agent finished"), ("body", "")])))
        #expect(android["message"]?["token"]?.stringValue == Redact.token(androidToken))
    }

    @Test func aSendToAHundredFCMTokensIsAccepted() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let tokens = (0..<100).map { _ in AndroidChain.fcmToken() }
        for token in tokens {
            #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        }
        let body = try host.send(tokens: tokens, title: "Agent needs permission", body: "deploy", badge: 1, collapseId: "permission-s9",
                                 data: [("sessionId", "s9")])
        #expect(body.count > 16 * 1024, "over the other signed routes' cap")
        let sent = try await chain.post("/v1/push/send", body)
        #expect(sent.status == 200)
        let rows = try JSONValue.parse(Array(sent.json.utf8))["results"]?.arrayValue ?? []
        #expect(rows.count == 100 && rows.allSatisfy { $0["ok"] == true })
        #expect(Set(chain.fcm.sends.compactMap(\.deviceToken)) == Set(tokens))
        #expect(chain.apns.requests.isEmpty)
        try await chain.stop()
    }
}

/// A host signing as OpenChamber's `apns-runtime.js` does (`signRelayMessage`: ECDSA P-256 over
/// SHA-256, IEEE P1363, base64url), its bodies in `JSON.stringify`'s member order.
struct OpenChamberHost {
    let key: P256PrivateKey

    /// `registerTokenWithRelay`: `{token, platform, publicKeyJwk, ts, sig}` over `${ts}.${token}.${platform}`.
    func register(_ token: String, platform: String) throws -> [UInt8] {
        let ts = Int64(Date().timeIntervalSince1970 * 1000)
        return try signed([("token", .string(token)), ("platform", .string(platform))], message: "\(ts).\(token).\(platform)", ts: ts)
    }

    /// `sendViaRelay`: `{tokens, title, body, badge, collapseId, env, data, publicKeyJwk, ts, sig}`
    /// over `${ts}.${[...tokens].sort().join(',')}.${title}` — JavaScript's default sort, by
    /// UTF-16 code units; `body` is `''` when the payload has none, `undefined` members are left out.
    func send(tokens: [String], title: String, body: String = "", badge: Int64? = nil, collapseId: String? = nil,
              data: [(String, String)] = []) throws -> [UInt8] {
        let ts = Int64(Date().timeIntervalSince1970 * 1000)
        let sorted = tokens.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
        var fields: [(String, JSONValue)] = [("tokens", .array(tokens.map { .string($0) })), ("title", .string(title)), ("body", .string(body))]
        if let badge { fields.append(("badge", .integer(badge))) }
        if let collapseId { fields.append(("collapseId", .string(collapseId))) }
        fields.append(("env", "production"))
        if !data.isEmpty { fields.append(("data", .object(JSONObject(data.map { ($0.0, .string($0.1)) })))) }
        return try signed(fields, message: "\(ts).\(sorted.joined(separator: ",")).\(title)", ts: ts)
    }

    private func signed(_ fields: [(String, JSONValue)], message: String, ts: Int64) throws -> [UInt8] {
        let jwk = key.publicKey.jwk
        let publicKeyJwk = JSONObject(["kty", "crv", "x", "y"].map { ($0, jwk[$0] ?? .null) })
        let sig = Base64URL.encode(try key.sign(Array(message.utf8)))
        return JSONValue.object(JSONObject(fields + [("publicKeyJwk", .object(publicKeyJwk)), ("ts", .integer(ts)), ("sig", .string(sig))]))
            .serializedBytes()
    }
}

/// `pushgate-relay` as a child process with the fake APNs for iOS tokens and a fake FCM that
/// knows the `rs256-oauth.json` account for Android tokens (`ANDROID_FCM_*`).
struct AndroidChain {
    let relay: RelayProcess
    let port: UInt16
    let apns: FakeAPNs
    let fcm: FakeFCM
    let directory: URL

    /// `settings` are laid over the relay's environment; `androidAccount: false` leaves the
    /// `ANDROID_FCM_*` settings out, as an operator who removed the account would.
    static func start(settings: [String: String] = [:], androidAccount: Bool = true) async throws -> AndroidChain {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("android-\(UUID().uuidString)")
        let apns = try FakeAPNsFixture(clock: SystemClock(), directory: directory.path)
        let fcm = try FakeFCMFixture(account: try HapiPushHarness.serviceAccountObject(), clock: SystemClock(),
                                     directory: directory.appendingPathComponent("fcm").path)
        var environment = try apns.relayEnvironment(bundleId: "dev.pushgate.android-test",
                                                    databasePath: directory.appendingPathComponent("relay.sqlite").path)
        // The fixture names hapi's account; the signed routes' Android account is another setting.
        if androidAccount {
            for (name, value) in fcm.relayEnvironment {
                environment[name.replacingOccurrences(of: "PUSHGATE_RELAY_FCM_", with: "PUSHGATE_RELAY_ANDROID_FCM_")] = value
            }
        }
        environment["PUSHGATE_RELAY_REGISTER_LIMIT_PER_MINUTE"] = "1000"
        environment["PUSHGATE_LOG_LEVEL"] = "warning"
        environment.merge(settings) { $1 }
        let relay = try RelayProcess(environment: environment)
        guard let port = try await onOwnThread({ relay.port() }) else {
            throw RelayStartFailure(stderr: try await onOwnThread { relay.exitStatus().stderr })
        }
        return AndroidChain(relay: relay, port: UInt16(port), apns: apns.fake, fcm: fcm.fake, directory: directory)
    }

    /// A token shaped as FCM makes them: an instance id, `:`, and a base64url body.
    static func fcmToken() -> String {
        "e" + Hex.encode(SecureRandom.bytes(10)) + ":APA91b" + Base64URL.encode(SecureRandom.bytes(105))
    }

    func post(_ path: String, _ body: [UInt8]) async throws -> (status: Int, json: String) {
        try await Endpoint(port: port).post(path, body)
    }

    /// A relay's port on loopback.
    struct Endpoint {
        let port: UInt16

        /// `POST path` on a connection of its own; the status and the body as text.
        func post(_ path: String, _ body: [UInt8]) async throws -> (status: Int, json: String) {
            let port = port
            return try await onOwnThread {
                let client = try RawHTTPConnection(port: port)
                client.sendUnlessClosed(RawHTTPConnection.request("POST", path, body: body, headers: ["content-type: application/json"]))
                let response = try client.readResponse()
                return (response.status, response.bodyText)
            }
        }
    }

    func stop() async throws {
        relay.signal(SIGTERM)
        let (status, stderr) = try await onOwnThread { relay.exitStatus() }
        #expect(status == 0, "the relay exited \(status): \(stderr)")
        apns.stop()
        fcm.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    struct RelayStartFailure: Error, CustomStringConvertible {
        let stderr: String
        var description: String { "pushgate-relay did not start: \(stderr)" }
    }
}
