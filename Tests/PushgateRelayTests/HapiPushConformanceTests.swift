import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PushgateCore
import PushgateProviders
import PushgateRelay
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 line 38 (relay-server) and the rest of §7 relay side, end to end over
/// loopback: a real relay in front of the fake APNs and the fake FCM.
@Suite(.hangLimit(.minutes(1))) struct HapiPushConformanceTests {
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var ok: JSONValue { ["ok": true] }

    static func refusal(_ code: String) -> (JSONValue) -> Bool {
        { $0["ok"] == false && $0["code"] == .string(code) }
    }

    @Test func anEnvelopeOf3200CharactersIsForwardedAnd3204Is413() async throws {
        let harness = try await HapiPushHarness(fcm: false)
        let token = TestToken.make()
        let fits = HapiPushHarness.envelope(3200)
        let answer = try await harness.push(HapiPushHarness.body(token: token, envelope: fits))
        #expect(answer.status == 200)
        #expect(answer.json == Self.ok)
        let record = try #require(harness.relay.received(token).first)
        #expect(record.payload?["hapi"]?["e"] == .string(fits))
        let over = try await harness.push(HapiPushHarness.body(token: token, envelope: HapiPushHarness.envelope(3204)))
        #expect(over.status == 413)
        #expect(Self.refusal("too_large")(over.json))
        // Over 3200 is 413 even when the shape is wrong too: length comes first.
        let malformed = try await harness.push(HapiPushHarness.body(token: token, envelope: String(repeating: "!", count: 3201)))
        #expect(malformed.status == 413)
        #expect(harness.relay.received(token).count == 1)
        await harness.stop()
    }

    @Test func theBodyCapIs64KiBHereAnd16KiBOnRegister() async throws {
        let harness = try await HapiPushHarness(fcm: false)
        let token = TestToken.make()
        // A valid body padded with white space to exactly 64 KiB is read and served.
        let body = HapiPushHarness.body(token: token)
        let padded = body + [UInt8](repeating: 0x20, count: 64 * 1024 - body.count)
        #expect(try await harness.push(padded).status == 200)
        let port = harness.relay.relay.port
        let (over, signed) = try await onOwnThread {
            (try RawHTTPConnection.postHeadOnly(port: port, path: "/v1/push", length: 64 * 1024 + 1),
             try RawHTTPConnection.postHeadOnly(port: port, path: "/v1/push/register-token", length: 16 * 1024 + 1))
        }
        #expect(over.status == 413)
        #expect(Self.refusal("too_large")((try? JSONValue.parse(over.body)) ?? .null))
        #expect(signed.status == 413)
        #expect(signed.bodyText == #"{"error":"payload_too_large"}"#)
        await harness.stop()
    }

    @Test func anUppercaseIOSTokenIsLowercasedAndAnAndroidTokenKeepsItsCase() async throws {
        let harness = try await HapiPushHarness()
        let token = TestToken.make()
        #expect(try await harness.push(HapiPushHarness.body(token: token.uppercased())).status == 200)
        #expect(harness.relay.received(token).count == 1)
        let android = "dQw4w9WgXcQ:APA91bH-Mixed_Case"
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: android, collapseId: nil)).status == 200)
        #expect(harness.fcm?.sends.first?.deviceToken == android)
        await harness.stop()
    }

    @Test func malformedRequestsAre400InTheOrderOfChecks() async throws {
        let harness = try await HapiPushHarness(fcm: false)
        let token = TestToken.make()
        let cases: [String] = [
            "[]", "{", #"{"platform":"web","token":"\#(token)","envelope":"QUJD"}"#,
            #"{"token":"\#(token)","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"ab cd","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"\#(token)1","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"0123456789abcd","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"\#(String(repeating: "ab", count: 257))","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"\#(token.dropLast(2))zz","envelope":"QUJD"}"#,
            #"{"platform":"android","token":"\#(String(repeating: "a", count: 4097))","envelope":"QUJD"}"#,
            #"{"platform":"android","token":"tab\there","envelope":"QUJD"}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":""}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":5}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJ"}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QU-D"}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"Q=JD"}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"===="}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJD","collapseId":5}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJD","collapseId":null}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJD","collapseId":"ready\ns1"}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJD","collapseId":"ready\rs1"}"#,
            #"{"platform":"android","token":"fcm-token","envelope":"QUJD","collapseId":"\u0000"}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJD","priority":7}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QUJD","priority":"10"}"#,
        ]
        for body in cases {
            let answer = try await harness.push(Array(body.utf8))
            #expect(answer.status == 400, "\(body)")
            #expect(Self.refusal("bad_request")(answer.json), "\(body)")
            #expect(answer.json["message"]?.stringValue?.contains(token) != true)
        }
        // Accepted edge values: priority 5 (and 10.0), an empty collapse id (left out), padding.
        let accepted = [
            #"{"platform":"ios","token":"\#(token)","envelope":"QUI=","priority":5,"collapseId":""}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"QQ==","priority":10.0,"extra":true}"#,
        ]
        for body in accepted { #expect(try await harness.push(Array(body.utf8)).status == 200, "\(body)") }
        let sent = harness.relay.received(token)
        #expect(sent.map { $0.header("apns-priority") } == ["5", "10"])
        #expect(sent.allSatisfy { $0.header("apns-collapse-id") == nil })
        await harness.stop()
    }

    @Test func androidWithoutFCMIs501AndOtherMethodsAre405() async throws {
        let harness = try await HapiPushHarness(fcm: false)
        let android = try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-token", collapseId: nil))
        #expect(android.status == 501)
        #expect(Self.refusal("unsupported_platform")(android.json))
        for method in ["GET", "PUT", "DELETE"] {
            let answer = try await harness.relay.request(method, "/v1/push")
            #expect(answer.status == 405 && answer.headers["allow"] == "POST", "\(method)")
            #expect((try? JSONValue.parse(answer.body)).map(Self.refusal("method_not_allowed")) == true)
        }
        let unknown = try await harness.relay.request("POST", "/v1/pushes", body: HapiPushHarness.body(token: TestToken.make()))
        #expect(unknown.status == 404)
        #expect(unknown.body.isEmpty)
        await harness.stop()
    }

    @Test func the31stSendToOneTokenWithinAMinuteIs429() async throws {
        let harness = try await HapiPushHarness()
        let token = TestToken.make()
        for index in 0..<30 {
            #expect(try await harness.push(HapiPushHarness.body(token: token)).status == 200, "send \(index)")
        }
        let refused = try await harness.push(HapiPushHarness.body(token: token))
        #expect(refused.status == 429)
        #expect(Self.refusal("rate_limited")(refused.json))
        // The same token on the other platform, and an upper-case spelling of it, share nothing / everything.
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: token, collapseId: nil)).status == 200)
        #expect(try await harness.push(HapiPushHarness.body(token: token.uppercased())).status == 429)
        // The bucket refills continuously: one token every 2 s.
        harness.clock.advance(milliseconds: 1_999)
        #expect(try await harness.push(HapiPushHarness.body(token: token)).status == 429)
        harness.clock.advance(milliseconds: 1)
        #expect(try await harness.push(HapiPushHarness.body(token: token)).status == 200)
        #expect(harness.relay.received(token).count == 31)
        await harness.stop()
    }

    @Test func the301stRequestFromOneIPIs429AndXForwardedForIsIgnoredWithoutTrustProxy() async throws {
        let harness = try await HapiPushHarness(fcm: false)
        for index in 0..<300 {
            let answer = try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "10.0.\(index / 256).\(index % 256)"])
            #expect(answer.status == 200, "request \(index)")
        }
        let refused = try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "10.9.9.9"])
        #expect(refused.status == 429)
        #expect(Self.refusal("rate_limited")(refused.json))
        // Refused by the IP bucket, so nothing was taken from the token's own bucket.
        #expect(harness.apns.counters.requests == 300)
        await harness.stop()
    }

    @Test func withTrustProxyEachForwardedAddressHasItsOwnBucket() async throws {
        let harness = try await HapiPushHarness(settings: ["TRUST_PROXY_HOPS": "1"], fcm: false)
        for _ in 0..<300 { #expect(try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "203.0.113.7"]).status == 200) }
        #expect(try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "203.0.113.7"]).status == 429)
        #expect(try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "203.0.113.8"]).status == 200)
        // One trusted hop: the rightmost address, whatever the caller wrote to its left.
        #expect(try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "203.0.113.8, 203.0.113.7"]).status == 429)
        #expect(try await harness.push(HapiPushHarness.body(token: TestToken.make()), headers: ["x-forwarded-for": "203.0.113.7, 1.2.3.4"]).status == 200)
        await harness.stop()
    }

    @Test func providerAnswersMapToRelayCodes() async throws {
        let harness = try await HapiPushHarness()
        let apnsRows: [(ScriptedResponse, Int, String)] = [
            (ScriptedResponse(status: 410, reason: .unregistered), 410, "unregistered"),
            (ScriptedResponse(status: 400, reason: .badDeviceToken), 410, "unregistered"),
            (ScriptedResponse(status: 400, reason: .deviceTokenNotForTopic), 502, "upstream"),
            (ScriptedResponse(status: 429, reason: .tooManyRequests), 429, "rate_limited"),
            (ScriptedResponse(status: 500, reason: .internalServerError), 502, "upstream"),
        ]
        for (script, status, code) in apnsRows {
            let token = TestToken.make()
            harness.apns.script(token: token, script)
            let answer = try await harness.push(HapiPushHarness.body(token: token))
            #expect(answer.status == status, "\(script)")
            #expect(Self.refusal(code)(answer.json), "\(script)")
        }
        let fcmRows: [(FakeFCMError, Int, String)] = [
            (.unregistered, 410, "unregistered"), (.invalidToken, 410, "unregistered"), (.quotaExceeded, 429, "rate_limited"),
            (.unavailable, 502, "upstream"), (.senderIdMismatch, 502, "upstream"), (.notFound, 502, "upstream"),
        ]
        for (index, row) in fcmRows.enumerated() {
            harness.fcm?.script(token: "fcm-\(index)", FakeFCMScript(row.0))
            let answer = try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-\(index)", collapseId: nil))
            #expect(answer.status == row.1, "\(row.0.errorStatus)")
            #expect(Self.refusal(row.2)(answer.json), "\(row.0.errorStatus)")
        }
        harness.fcm?.failTokenExchanges(status: 500)
        harness.fcm?.revokeAccessTokens()
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-x", collapseId: nil)).status == 502)
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-x", collapseId: nil)).status == 502)
        await harness.stop()
    }

    @Test func theAndroidLaneSendsTheRelayWrapperMessage() async throws {
        let harness = try await HapiPushHarness(settings: ["FCM_PACKAGE_NAME": "dev.pushgate.companion"])
        let envelope = HapiPushHarness.envelope(200)
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: "normal", envelope: envelope, collapseId: "ready-s1",
                                                             priority: 5)).status == 200)
        let message = try #require(harness.fcm?.sends.first?.message)
        #expect(message == JSONObject([
            ("token", "normal"), ("data", .object(JSONObject([("hapi_v", "1"), ("hapi_e", .string(envelope))]))),
            ("android", .object(JSONObject([("priority", "NORMAL"), ("ttl", "3600s"), ("restricted_package_name", "dev.pushgate.companion")]))),
        ]))
        await harness.stop()
    }

    @Test func theIOSLaneUsesTheE2EBundleIdAndTruncatesTheCollapseIdAgain() async throws {
        let harness = try await HapiPushHarness(settings: ["E2E_APNS_BUNDLE_ID": "run.hapi.ios"], fcm: false)
        let token = TestToken.make()
        let longId = "ready-" + String(repeating: "a", count: 56) + "😀"
        #expect(try await harness.push(HapiPushHarness.body(token: token, collapseId: longId)).status == 200)
        let record = try #require(harness.relay.received(token).first)
        #expect(record.header("apns-topic") == "run.hapi.ios")
        #expect(record.header("apns-collapse-id") == "ready-" + String(repeating: "a", count: 56))
        await harness.stop()
    }

    @Test func logLinesHoldTheTokenHashButNeverTheTokenEnvelopeOrCollapseId() async throws {
        let harness = try await HapiPushHarness()
        let token = TestToken.make()
        let envelope = "U0VDUkVULUVOVkVMT1BFLUNPTlRFTlQ="
        let android = "android-registration-token-secret"
        #expect(try await harness.push(HapiPushHarness.body(token: token.uppercased(), envelope: envelope, collapseId: "collapse-secret")).status == 200)
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: android, envelope: envelope, collapseId: nil)).status == 200)
        harness.apns.script(token: token, .unregistered)
        #expect(try await harness.push(HapiPushHarness.body(token: token, envelope: envelope)).status == 410)
        _ = try await harness.push(Array(#"{"platform":"ios","token":"\#(token)","envelope":"\#(envelope)","priority":7}"#.utf8))
        let lines = harness.relay.logs.lines.filter { $0.contains("hapi push") }
        #expect(lines.contains { $0.contains("platform=ios") && $0.contains("token=\(Redact.token(token))") && $0.contains("outcome=sent") && $0.contains("durationMs=") })
        #expect(lines.contains { $0.contains("platform=android") && $0.contains("token=\(Redact.token(android))") })
        #expect(lines.contains { $0.contains("outcome=unregistered") })
        let leaks = await harness.relay.stopAndFindLeaks(extra: [token.uppercased(), envelope, "collapse-secret", android])
        #expect(leaks.isEmpty, "\(leaks)")
        harness.fcm?.stop()
    }

    @Test func dryRunAcceptsBothPlatformsAndWritesLinesWithoutTheEnvelope() async throws {
        let dryRun = try await DryRunRelay.start()
        let token = TestToken.make()
        let envelope = HapiPushHarness.envelope(96)
        for body in [HapiPushHarness.body(token: token, envelope: envelope), HapiPushHarness.body(platform: "android", token: "fcm", envelope: envelope, collapseId: nil, priority: 5)] {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(dryRun.port)/v1/push")!)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try JSONValue.parse(Array(data)) == Self.ok)
        }
        let text = try await dryRun.stop()
        #expect(!text.contains(envelope))
        let lines = try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(lines == [
            .object(JSONObject([("route", "/v1/push"), ("platform", "ios"), ("token", .string(Redact.token(token))), ("envelopeLength", 96),
                                ("collapseId", "ready-s1"), ("priority", 10)])),
            .object(JSONObject([("route", "/v1/push"), ("platform", "android"), ("token", .string(Redact.token("fcm"))),
                                ("envelopeLength", 96), ("priority", 5)])),
        ])
    }
}
