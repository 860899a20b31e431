import PushgateCore
import Testing
@testable import PushgateTesting

@Suite struct RecordedRequestTests {
    @Test func recordLineIsCompactJSONWithRedactedProviderToken() throws {
        let request = RecordedRequest(
            method: "POST", path: "/3/device/aabb",
            headers: [("authorization", "bearer a.b.c"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert")],
            payload: ["aps": ["alert": ["title": "T"]]], status: 410, reason: .unregistered, deviceToken: "aabb",
            apnsId: "00000000-0000-4000-8000-000000000001", reset: false)
        let line = request.recordLine()
        #expect(line == #"{"path":"/3/device/aabb","headers":{"authorization":"[redacted]","apns-topic":"com.example.app","apns-push-type":"alert"},"payload":{"aps":{"alert":{"title":"T"}}},"status":410,"reason":"Unregistered"}"#)
        #expect(!line.contains("a.b.c"))
    }

    @Test func successHasNullReasonAndUnparsablePayloadIsNull() {
        let request = RecordedRequest(
            method: "POST", path: "/3/device/aabb", headers: [], payload: nil, status: 200, reason: nil,
            deviceToken: "aabb", apnsId: "00000000-0000-4000-8000-000000000001", reset: false)
        #expect(request.recordLine() == #"{"path":"/3/device/aabb","headers":{},"payload":null,"status":200,"reason":null}"#)
    }

    @Test func aResetStreamHasNullStatusAndEndsWithReset() {
        let request = RecordedRequest(
            method: "POST", path: "/3/device/aabb", headers: [], payload: ["aps": [:]], status: 0, reason: nil,
            deviceToken: "aabb", apnsId: "00000000-0000-4000-8000-000000000001", reset: true)
        #expect(request.recordLine() == #"{"path":"/3/device/aabb","headers":{},"payload":{"aps":{}},"status":null,"reason":null,"reset":true}"#)
    }
}
