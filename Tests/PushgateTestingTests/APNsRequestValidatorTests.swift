import PushgateCore
import Testing
@testable import PushgateTesting

@Suite struct APNsRequestValidatorTests {
    static let token = String(repeating: "ab", count: 32)

    /// A request APNs accepts; each case below changes one thing.
    static func validRequest() -> FakeHTTP2Request {
        FakeHTTP2Request(
            method: "POST",
            path: "/3/device/\(token)",
            headers: [
                ("authorization", "bearer good.jwt.sig"),
                ("apns-topic", "com.example.app"),
                ("apns-push-type", "alert"),
                ("apns-priority", "10"),
                ("apns-expiration", "0"),
            ],
            body: Array(#"{"aps":{"alert":{"title":"T"}}}"#.utf8))
    }

    static func tokens(_ jwt: String) -> ProviderTokenStatus {
        switch jwt {
        case "good.jwt.sig": .valid
        case "old.jwt.sig": .expired
        default: .invalid
        }
    }

    static func setting(_ name: String, _ value: String?) -> @Sendable (inout FakeHTTP2Request) -> Void {
        { request in
            request.headers.removeAll { $0.name == name }
            if let value { request.headers.append((name, value)) }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let change: @Sendable (inout FakeHTTP2Request) -> Void
        let status: Int
        let reason: APNsReason?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "valid", change: { _ in }, status: 200, reason: nil),
        Case(name: "GET", change: { $0.method = "GET" }, status: 405, reason: .methodNotAllowed),
        Case(name: "other path", change: { $0.path = "/3/other/\(token)" }, status: 404, reason: .badPath),
        Case(name: "no token", change: { $0.path = "/3/device/" }, status: 400, reason: .missingDeviceToken),
        Case(name: "odd-length token", change: { $0.path = "/3/device/abc" }, status: 400, reason: .badDeviceToken),
        Case(name: "non-hex token", change: { $0.path = "/3/device/zz" }, status: 400, reason: .badDeviceToken),
        Case(name: "upper-case hex token", change: { $0.path = "/3/device/ABCD" }, status: 200, reason: nil),
        Case(name: "duplicate topic", change: { $0.headers.append(("apns-topic", "x")) }, status: 400, reason: .duplicateHeaders),
        Case(name: "no authorization", change: setting("authorization", nil), status: 403, reason: .missingProviderToken),
        Case(name: "empty authorization", change: setting("authorization", ""), status: 403, reason: .missingProviderToken),
        Case(name: "Bearer capitalised", change: setting("authorization", "Bearer good.jwt.sig"), status: 200, reason: nil),
        Case(name: "not bearer", change: setting("authorization", "basic good.jwt.sig"), status: 403, reason: .invalidProviderToken),
        Case(name: "bad jwt", change: setting("authorization", "bearer bad.jwt.sig"), status: 403, reason: .invalidProviderToken),
        Case(name: "expired jwt", change: setting("authorization", "bearer old.jwt.sig"), status: 403, reason: .expiredProviderToken),
        Case(name: "no topic", change: setting("apns-topic", nil), status: 400, reason: .missingTopic),
        Case(name: "no push type", change: setting("apns-push-type", nil), status: 400, reason: .invalidPushType),
        Case(name: "unknown push type", change: setting("apns-push-type", "sms"), status: 400, reason: .invalidPushType),
        Case(name: "live activity on bundle topic", change: setting("apns-push-type", "liveactivity"), status: 400, reason: .badTopic),
        Case(
            name: "live activity topic",
            change: { setting("apns-push-type", "liveactivity")(&$0); setting("apns-topic", "com.example.app.push-type.liveactivity")(&$0) },
            status: 200, reason: nil),
        Case(name: "priority 5", change: setting("apns-priority", "5"), status: 200, reason: nil),
        Case(name: "priority 1", change: setting("apns-priority", "1"), status: 200, reason: nil),
        Case(name: "no priority", change: setting("apns-priority", nil), status: 200, reason: nil),
        Case(name: "priority 7", change: setting("apns-priority", "7"), status: 400, reason: .badPriority),
        Case(name: "background priority 5", change: { background(&$0); setting("apns-priority", "5")(&$0) }, status: 200, reason: nil),
        Case(name: "background priority 10", change: background, status: 400, reason: .badPriority),
        Case(name: "background without priority (APNs takes 10)", change: { background(&$0); setting("apns-priority", nil)(&$0) },
             status: 400, reason: .badPriority),
        Case(name: "background on a VoIP topic",
             change: { background(&$0); setting("apns-priority", "5")(&$0); setting("apns-topic", "com.example.app.voip")(&$0) },
             status: 400, reason: .badTopic),
        Case(name: "collapse id 64 bytes", change: setting("apns-collapse-id", String(repeating: "c", count: 64)), status: 200, reason: nil),
        Case(name: "collapse id 65 bytes", change: setting("apns-collapse-id", String(repeating: "c", count: 65)), status: 400, reason: .badCollapseId),
        Case(name: "apns-id uuid", change: setting("apns-id", "123e4567-e89b-12d3-a456-426614174000"), status: 200, reason: nil),
        Case(name: "apns-id not uuid", change: setting("apns-id", "123e4567e89b12d3a456426614174000"), status: 400, reason: .badMessageId),
        Case(name: "expiration not a number", change: setting("apns-expiration", "soon"), status: 400, reason: .badExpirationDate),
        Case(name: "empty payload", change: { $0.body = [] }, status: 400, reason: .payloadEmpty),
        Case(name: "invalid JSON payload", change: { $0.body = Array("{\"aps\":".utf8) }, status: 400, reason: .payloadEmpty),
        Case(name: "JSON array payload", change: { $0.body = Array("[1]".utf8) }, status: 400, reason: .payloadEmpty),
        Case(name: "payload 4096 bytes", change: { $0.body = paddedPayload(4096) }, status: 200, reason: nil),
        Case(name: "payload 4097 bytes", change: { $0.body = paddedPayload(4097) }, status: 413, reason: .payloadTooLarge),
        Case(
            name: "voip payload 5120 bytes",
            change: { setting("apns-push-type", "voip")(&$0); setting("apns-topic", "com.example.app.voip")(&$0); $0.body = paddedPayload(5120) },
            status: 200, reason: nil),
        Case(name: "live activity start", change: { liveActivityStart(&$0) }, status: 200, reason: nil),
        Case(name: "start as an alert", change: { liveActivityStart(&$0); setting("apns-push-type", "alert")(&$0) },
             status: 400, reason: .invalidPushType),
        Case(name: "start on the bundle topic", change: { liveActivityStart(&$0); setting("apns-topic", "com.example.app")(&$0) },
             status: 400, reason: .badTopic),
        Case(name: "start without attributes-type", change: { liveActivityStart(&$0, without: "attributes-type") },
             status: 400, reason: .payloadEmpty),
        Case(name: "start without attributes", change: { liveActivityStart(&$0, without: "attributes") }, status: 400, reason: .payloadEmpty),
        Case(name: "start without content-state", change: { liveActivityStart(&$0, without: "content-state") },
             status: 400, reason: .payloadEmpty),
        Case(name: "start without timestamp", change: { liveActivityStart(&$0, without: "timestamp") }, status: 400, reason: .payloadEmpty),
        Case(name: "start without alert", change: { liveActivityStart(&$0, without: "alert") }, status: 400, reason: .payloadEmpty),
    ]

    /// A push-to-start to a Live Activity token with every member a start needs but `without`.
    static func liveActivityStart(_ request: inout FakeHTTP2Request, without: String? = nil) {
        setting("apns-push-type", "liveactivity")(&request)
        setting("apns-topic", "com.example.app.push-type.liveactivity")(&request)
        var aps = JSONObject([
            ("timestamp", 1_764_669_600), ("event", "start"), ("content-state", ["status": "working"]),
            ("attributes-type", "PushgateActivityAttributes"), ("attributes", ["sessionId": "s1"]), ("alert", ["title": "Build"]),
        ])
        if let without { aps[without] = nil }
        request.body = JSONValue.object(JSONObject([("aps", .object(aps))])).serializedBytes()
    }

    /// A silent push: push type `background`, `aps` with only `content-available` (priority left at 10).
    static let background: @Sendable (inout FakeHTTP2Request) -> Void = { request in
        setting("apns-push-type", "background")(&request)
        request.body = Array(#"{"aps":{"content-available":1}}"#.utf8)
    }

    /// `{"aps":{},"p":"xxx…"}` of exactly `size` bytes.
    static func paddedPayload(_ size: Int) -> [UInt8] {
        let frame = #"{"aps":{},"p":""}"#
        return Array(#"{"aps":{},"p":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: size - frame.utf8.count) + Array(#""}"#.utf8)
    }

    @Test(arguments: cases) func validationTable(_ testCase: Case) {
        var request = Self.validRequest()
        testCase.change(&request)
        let verdict = APNsRequestValidator().validate(request, checkProviderToken: Self.tokens)
        #expect(verdict.status == testCase.status)
        #expect(verdict.reason == testCase.reason)
        #expect((verdict.payload != nil) == (testCase.status == 200))
    }

    @Test func successCarriesTokenAndParsedPayload() {
        let verdict = APNsRequestValidator().validate(Self.validRequest(), checkProviderToken: Self.tokens)
        #expect(verdict.deviceToken == Self.token)
        #expect(verdict.payload == ["aps": ["alert": ["title": "T"]]])
    }

    @Test func providerTokenIsCheckedWithoutTheBearerPrefix() {
        var seen: [String] = []
        _ = APNsRequestValidator().validate(Self.validRequest()) { jwt in
            seen.append(jwt)
            return .valid
        }
        #expect(seen == ["good.jwt.sig"])
    }
}
