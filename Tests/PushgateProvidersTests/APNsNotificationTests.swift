import PushgateCore
import PushgateHTTP
@testable import PushgateProviders
import Testing

@Suite("APNs notifications and requests")
struct APNsNotificationTests {
    static let token = String(repeating: "ab", count: 32)
    static let payload = Array(#"{"aps":{"alert":{"title":"T"}}}"#.utf8)
    static let origin = HTTP2Origin(host: "127.0.0.1", port: 4443)

    @Test("an alert request: path, headers in order, collapse id, payload")
    func alertRequest() throws {
        let notification = try APNsNotification.alert(deviceToken: Self.token, bundleId: "com.example.app", payload: Self.payload,
                                                       collapseId: "session-1")
        let request = APNsRequestBuilder.request(for: notification, origin: Self.origin, authorization: "bearer JWT")
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/\(Self.token)")
        #expect(request.origin == Self.origin)
        #expect(request.headers == [
            HTTP2Header("authorization", "bearer JWT"),
            HTTP2Header("apns-topic", "com.example.app"),
            HTTP2Header("apns-push-type", "alert"),
            HTTP2Header("apns-priority", "10"),
            HTTP2Header("apns-expiration", "0"),
            HTTP2Header("apns-collapse-id", "session-1"),
        ])
        #expect(request.body == Self.payload)
    }

    @Test("no apns-collapse-id header without a collapse id")
    func noCollapseId() throws {
        let notification = try APNsNotification.alert(deviceToken: Self.token, bundleId: "com.example.app", payload: Self.payload)
        let request = APNsRequestBuilder.request(for: notification, origin: Self.origin, authorization: "bearer JWT")
        #expect(request.headers.first(named: "apns-collapse-id") == nil)
    }

    @Test("a Live Activity request: suffixed topic, liveactivity push type, chosen priority, no collapse id")
    func liveActivityRequest() throws {
        let notification = try APNsNotification.liveActivity(deviceToken: Self.token, bundleId: "com.example.app",
                                                              payload: Self.payload, priority: 5, expiration: 1_764_670_000)
        let request = APNsRequestBuilder.request(for: notification, origin: Self.origin, authorization: "bearer JWT")
        #expect(request.headers == [
            HTTP2Header("authorization", "bearer JWT"),
            HTTP2Header("apns-topic", "com.example.app.push-type.liveactivity"),
            HTTP2Header("apns-push-type", "liveactivity"),
            HTTP2Header("apns-priority", "5"),
            HTTP2Header("apns-expiration", "1764670000"),
        ])
    }

    @Test("a collapse id of exactly 64 bytes is kept")
    func collapseIdLimit() throws {
        let collapseId = String(repeating: "c", count: 64)
        let notification = try APNsNotification.alert(deviceToken: Self.token, bundleId: "b", payload: Self.payload, collapseId: collapseId)
        #expect(notification.collapseId == collapseId)
    }

    @Test("invalid notifications are refused before sending", arguments: [
        { try APNsNotification.alert(deviceToken: String(repeating: "c", count: 65), bundleId: "b", payload: payload) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "b", payload: payload, collapseId: String(repeating: "c", count: 65)) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "b", payload: payload, collapseId: "") },
        { try APNsNotification.alert(deviceToken: "xyz0", bundleId: "b", payload: payload) },
        { try APNsNotification.alert(deviceToken: "", bundleId: "b", payload: payload) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "", payload: payload) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "b", payload: []) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "b", payload: [UInt8](repeating: 0x20, count: 4097)) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "b", payload: payload, priority: 7) },
        { try APNsNotification.alert(deviceToken: token, bundleId: "b", payload: payload, expiration: -1) },
    ] as [@Sendable () throws -> APNsNotification])
    func invalid(make: @Sendable () throws -> APNsNotification) {
        #expect(throws: APNsNotificationError.self) { _ = try make() }
    }

    @Test("VoIP payloads may reach 5120 bytes, others 4096")
    func payloadLimits() throws {
        let large = [UInt8](repeating: 0x20, count: 5120)
        _ = try APNsNotification(deviceToken: Self.token, topic: "b.voip", pushType: .voip, payload: large)
        _ = try APNsNotification.alert(deviceToken: Self.token, bundleId: "b", payload: Array(large.prefix(4096)))
        #expect(throws: APNsNotificationError.self) {
            _ = try APNsNotification(deviceToken: Self.token, topic: "b.voip", pushType: .voip, payload: large + [0x20])
        }
    }

    @Test("expiry: now + TTL, 0 for a TTL of 0; a Live Activity push until its stale or dismissal date, 0 once past")
    func expiry() throws {
        let nowMs: Int64 = 1_800_000_000_500
        #expect(APNsNotification.expiration(ttlSeconds: 3_600, nowMs: nowMs) == 1_800_003_600)
        #expect(APNsNotification.expiration(ttlSeconds: 0, nowMs: nowMs) == 0)
        let state = try LiveActivityContentState(status: .working, eventVersion: 1, updatedAt: 1_800_000_000)
        let ended = try LiveActivityContentState(status: .complete, eventVersion: 2, updatedAt: 1_800_000_000, endedAt: 1_800_000_000)
        func push(_ event: LiveActivityEvent, dismissal: Int64? = nil, stale: Int64? = nil) throws -> LiveActivityPush {
            try LiveActivityPush(tokens: [Self.token], event: event, contentState: event == .end ? ended : state,
                                 dismissalDate: dismissal, staleDate: stale)
        }
        #expect(APNsNotification.expiration(of: try push(.update, stale: 1_800_001_200), ttlSeconds: 3_600, nowMs: nowMs) == 1_800_001_200)
        #expect(APNsNotification.expiration(of: try push(.end, dismissal: 1_800_000_900), ttlSeconds: 3_600, nowMs: nowMs) == 1_800_000_900)
        #expect(APNsNotification.expiration(of: try push(.update, stale: 1_799_999_999), ttlSeconds: 3_600, nowMs: nowMs) == 0)
        #expect(APNsNotification.expiration(of: try push(.update), ttlSeconds: 60, nowMs: nowMs) == 1_800_000_060)
        #expect(APNsNotification.expiration(of: try push(.end, stale: 1_800_001_200), ttlSeconds: 60, nowMs: nowMs) == 1_800_000_060,
                "an end is judged by its dismissal date only")
    }
}
