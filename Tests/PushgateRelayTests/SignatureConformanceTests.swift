import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// protocol/signed-relay.md §10 lines 1–4 and 10, over loopback HTTP.
@Suite(.hangLimit(.minutes(1))) struct SignatureConformanceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/vectors")

    static func vectors(_ name: String) throws -> JSONValue {
        try JSONValue.parse(Array(Data(contentsOf: fixtures.appendingPathComponent(name))))
    }

    /// The JWK of `host` in the identities file, with its members in the given order.
    static func publicJwk(_ host: String, order: [String] = ["kty", "crv", "x", "y"]) throws -> JSONValue {
        let jwk = try vectors("p256-identities.json")[host]!["publicJwk"]!.objectValue!
        return .object(JSONObject(order.map { ($0, jwk[$0]!) }))
    }

    static func body(fields: JSONObject, jwk: JSONValue, sig: String) -> [UInt8] {
        var object = fields
        object["publicKeyJwk"] = jwk
        object["sig"] = .string(sig)
        return JSONValue.object(object).serializedBytes()
    }

    @Test func serverIdOfVectorHostsAndMemberOrderDoNotMatter() async throws {
        let harness = try await RelayHarness()
        let identities = try Self.vectors("p256-identities.json")
        for host in ["hostA", "hostB"] {
            let key = try P256PrivateKey(jwk: identities[host]!["privateJwk"]!.objectValue!)
            #expect(key.publicKey.serverId == identities[host]!["serverId"]!.stringValue)
        }
        // A register whose JWK lists y, x, crv, kty binds the same host as the canonical order.
        let key = try P256PrivateKey(jwk: identities["hostA"]!["privateJwk"]!.objectValue!)
        let token = TestToken.make()
        let ts = harness.clock.nowMilliseconds
        let sig = Base64URL.encode(try key.sign(Array(SignedMessage.registerToken(ts: ts, token: token, platform: "ios").utf8)))
        let fields = JSONObject([("token", .string(token)), ("platform", "ios"), ("ts", .integer(ts))])
        let reply = try await harness.request("POST", "/v1/push/register-token",
                                              body: Self.body(fields: fields, jwk: try Self.publicJwk("hostA", order: ["y", "x", "crv", "kty"]), sig: sig))
        #expect(reply.status == 200)
        let sent = try await harness.host(key).send(tokens: [token], title: "Ready")
        #expect(sent.results.map(\.ok) == [true])
        #expect(await harness.stopAndFindLeaks().isEmpty)
    }

    @Test func everySignedMessageVectorVerifiesAndEveryInvalidVariantIsRefused() async throws {
        let vectors = try Self.vectors("signed-messages.json")
        let jwk = try Self.publicJwk(vectors["signer"]!.stringValue!)
        for testCase in vectors["cases"]!.arrayValue! {
            let harness = try await RelayHarness()
            let endpoint = testCase["endpoint"]!.stringValue!
            let fields = testCase["fields"]!.objectValue!
            harness.clock.set(milliseconds: fields["ts"]!.int64Value!)
            let path = "/v1/push/" + endpoint
            let valid = testCase["valid"]!.arrayValue!.map { $0.stringValue! }
            let invalid = testCase["invalid"]!.objectValue!
            for variant in ["der_encoded", "padded", "standard_base64"] {
                let reply = try await harness.request("POST", path, body: Self.body(fields: fields, jwk: jwk, sig: invalid[variant]!.stringValue!))
                #expect(reply.status == 400, "\(endpoint) \(variant)")
            }
            let other = try await harness.request("POST", path, body: Self.body(fields: fields, jwk: jwk, sig: invalid["other_key"]!.stringValue!))
            #expect(other.status == 401 && String(decoding: other.body, as: UTF8.self) == #"{"error":"invalid_signature"}"#)
            var tampered = fields
            tampered["ts"] = .integer(fields["ts"]!.int64Value! + 1)
            let changed = try await harness.request("POST", path, body: Self.body(fields: tampered, jwk: jwk, sig: valid[0]))
            #expect(changed.status == 401, "\(endpoint) tampered")
            // Both forms verify: the first is accepted, its high-S twin passes the signature check
            // and is then caught as a replay (sends) or answered 200 with no change (registers).
            let first = try await harness.request("POST", path, body: Self.body(fields: fields, jwk: jwk, sig: valid[0]))
            let twin = try await harness.request("POST", path, body: Self.body(fields: fields, jwk: jwk, sig: valid[1]))
            #expect(first.status == 200, "\(endpoint) valid")
            let twinText = String(decoding: twin.body, as: UTF8.self)
            #expect(twin.status == 200 || twinText == #"{"error":"replay"}"#, "\(endpoint) high-S twin: \(twinText)")
            await harness.stop()
        }
    }

    @Test func strictPublicKeyEncoding() async throws {
        let harness = try await RelayHarness()
        let key = P256PrivateKey()
        let token = TestToken.make()
        let ts = harness.clock.nowMilliseconds
        let sig = Base64URL.encode(try key.sign(Array(SignedMessage.registerToken(ts: ts, token: token, platform: "ios").utf8)))
        let fields = JSONObject([("token", .string(token)), ("platform", "ios"), ("ts", .integer(ts))])
        var jwk = key.publicKey.jwk
        var cases: [JSONObject] = []
        jwk["d"] = .string(try key.privateJWK["d"]!.stringValue!)
        cases.append(jwk)
        jwk = key.publicKey.jwk
        jwk["ext"] = true
        cases.append(jwk)
        jwk = key.publicKey.jwk
        jwk["x"] = .string(Base64URL.encode(Array(try Base64URL.decode(key.publicKey.x).dropFirst())))
        cases.append(jwk)
        // The last character of a 32-byte value carries two unused bits; setting one is non-canonical.
        jwk = key.publicKey.jwk
        var x = Array(key.publicKey.x)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        x[x.count - 1] = alphabet[alphabet.firstIndex(of: x[x.count - 1])! ^ 1]
        jwk["x"] = .string(String(x))
        cases.append(jwk)
        for bad in cases {
            let reply = try await harness.request("POST", "/v1/push/register-token", body: Self.body(fields: fields, jwk: .object(bad), sig: sig))
            #expect(reply.status == 400 && String(decoding: reply.body, as: UTF8.self) == #"{"error":"invalid_request"}"#)
        }
        // Well-encoded coordinates that are no point of P-256: a key nothing verifies with, 401
        // after the timestamp check, as a wrong signature is.
        var offCurve = key.publicKey.jwk
        offCurve["y"] = offCurve["x"]
        let notAPoint = try await harness.request("POST", "/v1/push/register-token", body: Self.body(fields: fields, jwk: .object(offCurve), sig: sig))
        #expect(notAPoint.status == 401 && String(decoding: notAPoint.body, as: UTF8.self) == #"{"error":"invalid_signature"}"#)
        var stale = fields
        stale["ts"] = .integer(ts - 600_000)
        let staleOffCurve = try await harness.request("POST", "/v1/push/register-token", body: Self.body(fields: stale, jwk: .object(offCurve), sig: sig))
        #expect(String(decoding: staleOffCurve.body, as: UTF8.self) == #"{"error":"timestamp"}"#)
        #expect(try await harness.request("POST", "/v1/push/register-token", body: Self.body(fields: fields, jwk: .object(key.publicKey.jwk), sig: sig)).status == 200)
        await harness.stop()
    }

    @Test func timestampSkewIsExclusiveAt300000Milliseconds() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let now = harness.clock.nowMilliseconds
        for (offset, expected) in [(-300_001, 401), (300_001, 401), (-299_999, 200), (299_999, 200)] as [(Int64, Int)] {
            harness.clock.set(milliseconds: now + offset)
            let body = try RelayRequestSigner(key: host.key).registerToken(TestToken.make(), ts: now + offset)
            harness.clock.set(milliseconds: now)
            let reply = try await host.post("register-token", body)
            #expect(reply.status == expected, "offset \(offset)")
            if expected == 401 { #expect(reply.errorCode == "timestamp") }
        }
        await harness.stop()
    }

    @Test func titleIsSignedButBodyBadgeAndDataAreNot() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        #expect(try await host.registerToken(token).isSuccess)
        let ts = harness.clock.nowMilliseconds
        let original = try JSONValue.parse(try RelayRequestSigner(key: host.key).send(
            tokens: [token], title: "Ready", body: "s1", badge: 1, data: [("sessionId", "s1")], ts: ts)).objectValue!
        var tampered = original
        tampered["title"] = "Pay now"
        #expect(try await host.post("send", JSONValue.object(tampered).serializedBytes()).errorCode == "invalid_signature")
        var changed = original
        changed["body"] = "other"
        changed["badge"] = 7
        changed["data"] = ["sessionId": "s2"]
        let reply = try await host.post("send", JSONValue.object(changed).serializedBytes())
        #expect(reply.results.map(\.ok) == [true])
        let aps = harness.received(token).last?.payload?["aps"]
        #expect(aps?["badge"] == .integer(7) && aps?["alert"]?["body"] == .string("other"))
        #expect(harness.received(token).last?.payload?["sessionId"] == .string("s2"))
        #expect(await harness.stopAndFindLeaks().isEmpty)
    }
}
