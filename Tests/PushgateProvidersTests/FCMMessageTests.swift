import PushgateCore
import PushgateProviders
import Testing

/// protocol/hapi-push.md §11 line 36 (fcm-messages): the exact shapes of direct and relay messages.
@Suite("FCM messages")
struct FCMMessageTests {
    static let payload = HapiPayload(type: .permissionRequest, sessionId: "s1", sessionName: "Demo", url: "/sessions/s1",
                                     requestId: "r1", title: "Permission Request", body: "Claude Bash: ls\nSession: Demo",
                                     severity: .warning, notifySummary: "")

    /// FCM reads keys as bytes: `google.` followed by a combining mark still starts with `google.`,
    /// though Swift's grapheme-wise hasPrefix would say no; the OpenAPI document's pattern agrees.
    @Test("reserved data keys are told by their bytes")
    func reservedDataKeysAreToldByTheirBytes() {
        #expect(FCMMessage.isReservedDataKey("google.\u{301}x"))
        #expect(FCMMessage.isReservedDataKey("gcm.\u{301}"))
        #expect(FCMMessage.isReservedDataKey("from"))
        #expect(!FCMMessage.isReservedDataKey("googlex"))
        #expect(!FCMMessage.isReservedDataKey("from\u{301}"))
    }

    @Test("direct: string data only, android.priority HIGH and ttl, no notification block")
    func direct() throws {
        let message = FCMMessage.direct(token: "tok:EN-1", payload: Self.payload, ttlSeconds: 3600)
        let body = try JSONValue.parse(message.body)
        let expected = try JSONValue.parse(#"""
            {"message":{"token":"tok:EN-1","data":{"type":"permission-request","sessionId":"s1","sessionName":"Demo","url":"/sessions/s1","requestId":"r1","title":"Permission Request","body":"Claude Bash: ls\nSession: Demo","severity":"warning","contractVersion":"1"},"android":{"priority":"HIGH","ttl":"3600s"}}}
            """#)
        #expect(body == expected)
        let data = try #require(body["message"]?["data"]?.objectValue)
        #expect(data.members.allSatisfy { $0.value.stringValue != nil })
        #expect(body["message"]?["notification"] == nil)
        #expect(body["message"]?["android"]?["direct_boot_ok"] == nil)
    }

    @Test("direct to a Wear OS row adds direct_boot_ok:true")
    func wear() throws {
        let body = try JSONValue.parse(FCMMessage.direct(token: "w", payload: Self.payload, wear: true, ttlSeconds: 3600).body)
        #expect(body["message"]?["android"] == .object(JSONObject([("priority", "HIGH"), ("ttl", "3600s"), ("direct_boot_ok", true)])))
    }

    @Test("relay: exactly hapi_v and hapi_e, ttl, restricted_package_name, NORMAL for priority 5, no collapse_key")
    func relay() throws {
        let high = try JSONValue.parse(FCMMessage.relay(token: "CaseSensitive", envelope: "QUJD+/==", packageName: "dev.example", ttlSeconds: 3600).body)
        #expect(high == (try JSONValue.parse(#"""
            {"message":{"token":"CaseSensitive","data":{"hapi_v":"1","hapi_e":"QUJD+/=="},"android":{"priority":"HIGH","ttl":"3600s","restricted_package_name":"dev.example"}}}
            """#)))
        let normal = try JSONValue.parse(FCMMessage.relay(token: "t", envelope: "QUJD", priority: 5, ttlSeconds: 0).body)
        #expect(normal["message"]?["android"]?["ttl"] == "0s")
        #expect(normal["message"]?["android"]?["priority"] == "NORMAL")
        #expect(normal["message"]?["android"]?["restricted_package_name"] == "run.hapi.companion")
        #expect(normal["message"]?["android"]?["collapse_key"] == nil)
        #expect(normal["message"]?["notification"] == nil)
    }
}
