import Testing
import PushgateCore

/// protocol/hapi-push.md §3 receiver rules and §11 line 8 (device-drop), for both platforms.
@Suite struct HapiDeviceDecoderTests {
    struct Vector {
        let key: HapiPushKey
        let envelope: String
        let plaintext: String
        let tampered: String
    }

    static func ready() throws -> Vector {
        let file = try JSONFixtures.load("vectors/hapi-envelopes.json")
        let keyHex = try #require(file["keyHex"]?.stringValue)
        let key = try #require(HapiPushKey(bytes: try Hex.decode(keyHex)))
        let ready = try #require(file["cases"]?.arrayValue?.first)
        return Vector(key: key, envelope: try #require(ready["envelope"]?.stringValue),
                      plaintext: try #require(ready["canonicalPlaintext"]?.stringValue),
                      tampered: try #require(file["tampered"]?["flipLastByte"]?.stringValue))
    }

    /// The APNs payload the relay or a host in apns mode sends, with `hapi` as given.
    static func apns(_ hapi: JSONValue?) -> JSONObject {
        var payload = JSONObject([("aps", .object(JSONObject([
            ("mutable-content", 1), ("alert", .object(JSONObject([("title", "HAPI"), ("body", "New activity")]))), ("sound", "default"),
        ])))])
        payload["hapi"] = hapi
        return payload
    }

    static func hapi(v: JSONValue, e: String) -> JSONValue { .object(JSONObject([("v", v), ("e", .string(e))])) }

    @Test func theReadyVectorDecodesOnBothPlatforms() throws {
        let vector = try Self.ready()
        let expected = HapiDeviceMessage.notification(try HapiPayload(plaintext: Array(vector.plaintext.utf8)))
        #expect(HapiDeviceDecoder.decode(apnsPayload: Self.apns(Self.hapi(v: 1, e: vector.envelope)), key: vector.key) == expected)
        #expect(HapiDeviceDecoder.decode(fcmData: ["hapi_v": "1", "hapi_e": vector.envelope], key: vector.key) == expected)
        guard case .notification(let payload) = expected else { return }
        #expect(payload.title == "HAPI" && payload.body == "Ready for input" && payload.type == .ready && payload.sessionId == "s1")
    }

    @Test func messagesWithoutTheMarkerAreNotEncrypted() throws {
        let vector = try Self.ready()
        #expect(HapiDeviceDecoder.decode(apnsPayload: Self.apns(nil), key: vector.key) == .notEncrypted)
        #expect(HapiDeviceDecoder.decode(fcmData: ["type": "ready", "title": "t", "body": "b"], key: vector.key) == .notEncrypted)
    }

    @Test func deviceDropAndroid() throws {
        let vector = try Self.ready()
        let notString = try HapiEnvelope.seal(Array(#"{"body":"b","contractVersion":"1","n":1,"sessionId":"s","title":"t","type":"ready"}"#.utf8), key: vector.key)
        let missingField = try HapiEnvelope.seal(Array(#"{"body":"b","contractVersion":"1","sessionId":"s","type":"ready"}"#.utf8), key: vector.key)
        let notObject = try HapiEnvelope.seal(Array(#"["ready"]"#.utf8), key: vector.key)
        let short = Base64.encode([UInt8](repeating: 7, count: 27))
        let cases: [([String: String], HapiPushKey?, HapiDropReason)] = [
            (["hapi_v": "2", "hapi_e": vector.envelope], vector.key, .unsupportedVersion),
            (["hapi_e": vector.envelope, "title": "plaintext fallback"], vector.key, .unsupportedVersion),
            (["hapi_v": "1", "hapi_e": vector.envelope], nil, .missingKey),
            (["hapi_v": "1"], vector.key, .invalidEnvelope),
            (["hapi_v": "1", "hapi_e": "not base64!"], vector.key, .invalidEnvelope),
            (["hapi_v": "1", "hapi_e": String(vector.envelope.dropLast(1))], vector.key, .invalidEnvelope),
            (["hapi_v": "1", "hapi_e": short], vector.key, .invalidEnvelope),
            (["hapi_v": "1", "hapi_e": String(repeating: "QUJD", count: 801)], vector.key, .invalidEnvelope),
            (["hapi_v": "1", "hapi_e": vector.tampered], vector.key, .authenticationFailed),
            (["hapi_v": "1", "hapi_e": vector.envelope], HapiPushKey.random(), .authenticationFailed),
            (["hapi_v": "1", "hapi_e": notString], vector.key, .invalidPayload),
            (["hapi_v": "1", "hapi_e": missingField], vector.key, .invalidPayload),
            (["hapi_v": "1", "hapi_e": notObject, "title": "plaintext fallback", "body": "x"], vector.key, .invalidPayload),
        ]
        for (data, key, reason) in cases {
            #expect(HapiDeviceDecoder.decode(fcmData: data, key: key) == .drop(reason), "\(data.keys.sorted())")
        }
    }

    @Test func deviceDropIOS() throws {
        let vector = try Self.ready()
        let cases: [(JSONValue, HapiPushKey?, HapiDropReason)] = [
            (Self.hapi(v: 2, e: vector.envelope), vector.key, .unsupportedVersion),
            (Self.hapi(v: "1", e: vector.envelope), vector.key, .unsupportedVersion),
            (.object(JSONObject([("e", .string(vector.envelope))])), vector.key, .unsupportedVersion),
            ("garbage", vector.key, .unsupportedVersion),
            (Self.hapi(v: 1, e: vector.envelope), nil, .missingKey),
            (.object(JSONObject([("v", 1), ("e", 5)])), vector.key, .invalidEnvelope),
            (Self.hapi(v: 1, e: "%%%%"), vector.key, .invalidEnvelope),
            (Self.hapi(v: 1, e: vector.tampered), vector.key, .authenticationFailed),
        ]
        for (hapi, key, reason) in cases {
            #expect(HapiDeviceDecoder.decode(apnsPayload: Self.apns(hapi), key: key) == .drop(reason), "\(hapi.serialized())")
        }
        // 1.0 is the number 1.
        #expect(HapiDeviceDecoder.decode(apnsPayload: Self.apns(Self.hapi(v: 1.0, e: vector.envelope)), key: vector.key) != .drop(.unsupportedVersion))
    }

    @Test func aFreshEnvelopeOfTheHostRoundTrips() throws {
        let key = HapiPushKey.random()
        let payload = HapiPayload(type: .permissionRequest, sessionId: "s9", sessionName: "Demo", url: "/sessions/s9", requestId: "r1",
                                  title: "Permission Request", body: "Claude Bash: ls\nSession: Demo", severity: .warning)
        let envelope = try HapiEnvelope.seal(payload.canonicalPlaintext, key: key)
        #expect(HapiDeviceDecoder.decode(fcmData: ["hapi_v": "1", "hapi_e": envelope], key: key) == .notification(payload))
    }
}
