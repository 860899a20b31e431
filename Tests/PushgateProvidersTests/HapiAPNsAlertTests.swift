import Foundation
import PushgateCore
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 31–33 at the provider level: the encrypted alert, its headers, and
/// how APNs answers map to sent, dead or failed.
@Suite("hapi APNs alert", .hangLimit(.minutes(1)))
struct HapiAPNsAlertTests {
    static let minute: Int64 = 60_000
    /// The `ready` vector envelope: it contains `/` and `+`, which must go out unescaped.
    static let envelope = "AAECAwQFBgcICQoLPCC0dKGc4CGvE/Lq1ZBYC+ykp12eCyoIGkvH5nIHdMBgc9qqyrNh8RvKXdeqtgoUzCoF/im/zLR28wgjOpDEzNweshOnvUNDJnbiL7/GLMQa/rASE0FpSo+Y/6gB0sShxRvIOvgJGpKK+MjRlFlu"

    @Test("apns-request: the body bytes are the §8 template")
    func bodyTemplate() {
        let template = #"{"aps":{"mutable-content":1,"alert":{"title":"HAPI","body":"New activity"},"sound":"default"},"hapi":{"v":1,"e":""#
            + Self.envelope + #""}}"#
        #expect(HapiAPNsAlert.payload(envelope: Self.envelope) == Array(template.utf8))
    }

    @Test("apns-request: headers on the wire, collapse id truncated or left out, priority 10 or 5")
    func headersOnTheWire() async throws {
        let fixture = try APNsFakeFixture()
        let longId = "ready-" + String(repeating: "a", count: 56) + "😀"
        let cases: [(collapseId: String?, priority: Int, expected: String?)] = [
            ("ready-s1", 10, "ready-s1"), (longId, 10, "ready-" + String(repeating: "a", count: 56)), ("", 5, nil), (nil, 10, nil),
        ]
        for (index, item) in cases.enumerated() {
            let notification = try HapiAPNsAlert.notification(
                deviceToken: APNsFakeFixture.token(index), bundleId: APNsFakeFixture.bundleId, envelope: Self.envelope,
                collapseId: item.collapseId, priority: item.priority, expiration: 1_900_000_000 + Int64(index))
            #expect(HapiAPNsAlert.outcome(await fixture.client.send(notification, environment: .production)) == .sent)
        }
        let records = fixture.fake.requests
        try #require(records.count == cases.count)
        for (index, (record, item)) in zip(records, cases).enumerated() {
            #expect(record.header("apns-push-type") == "alert")
            #expect(record.header("apns-priority") == String(item.priority))
            #expect(record.header("apns-expiration") == String(1_900_000_000 + index))
            #expect(record.header("apns-topic") == APNsFakeFixture.bundleId)
            #expect(record.header("apns-collapse-id") == item.expected)
            #expect(record.payload?["hapi"]?["e"] == .string(Self.envelope))
            #expect(record.payload?["hapi"]?["v"] == .integer(1))
        }
        #expect(throws: APNsNotificationError.self) {
            try HapiAPNsAlert.notification(deviceToken: APNsFakeFixture.token(1), bundleId: APNsFakeFixture.bundleId,
                                           envelope: Self.envelope, collapseId: nil, priority: 1, expiration: 0)
        }
        await fixture.client.shutdown()
    }

    @Test("apns-outcomes: 410 and BadDeviceToken are dead; the rest keep the row, 429 as a throttle")
    func outcomes() async throws {
        let fixture = try APNsFakeFixture()
        let table: [(ScriptedResponse?, HapiPushOutcome)] = [
            (nil, .sent),
            (ScriptedResponse(status: 410, reason: .unregistered), .dead(reason: "Unregistered")),
            (ScriptedResponse(status: 400, reason: .badDeviceToken), .dead(reason: "BadDeviceToken")),
            (ScriptedResponse(status: 400, reason: .badCollapseId), .failed(reason: "BadCollapseId")),
            (ScriptedResponse(status: 400, reason: .deviceTokenNotForTopic), .failed(reason: "DeviceTokenNotForTopic")),
            (ScriptedResponse(status: 403, reason: .invalidProviderToken), .failed(reason: "InvalidProviderToken")),
            (ScriptedResponse(status: 429, reason: .tooManyRequests), .failed(reason: "TooManyRequests", failure: .throttled(retryAfterSeconds: nil))),
            (ScriptedResponse(status: 429), .failed(reason: "HTTP 429", failure: .throttled(retryAfterSeconds: nil))),
            (ScriptedResponse(status: 500, reason: .internalServerError), .failed(reason: "InternalServerError", failure: .unavailable(retryAfterSeconds: nil))),
        ]
        for (index, row) in table.enumerated() { fixture.fake.script(token: APNsFakeFixture.token(index), row.0) }
        for (index, row) in table.enumerated() {
            let notification = try HapiAPNsAlert.notification(deviceToken: APNsFakeFixture.token(index), bundleId: APNsFakeFixture.bundleId,
                                                              envelope: Self.envelope, collapseId: "ready-s1", expiration: 0)
            let outcome = HapiAPNsAlert.outcome(await fixture.client.send(notification, environment: .production))
            #expect(outcome == row.1, "row \(index)")
        }
        await fixture.client.shutdown()
    }

    @Test("apns-expired-retry: one retry with a new token (sent); expired twice is failed with no third attempt")
    func expiredProviderToken() async throws {
        // The client's clock runs 61 minutes behind the fake's, so its first token looks an hour old.
        let fakeClock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        let clientClock = ManualClock(milliseconds: fakeClock.nowMilliseconds - 61 * Self.minute)
        let fixture = try APNsFakeFixture(fakeClock: fakeClock, clientClock: clientClock)
        // Warm up, then move past the 20-minute renewal floor.
        _ = await fixture.client.send(try fixture.alert(99), environment: .production)
        clientClock.advance(milliseconds: 21 * Self.minute)
        fixture.fake.clearRequests()

        let retried = try HapiAPNsAlert.notification(deviceToken: APNsFakeFixture.token(1), bundleId: APNsFakeFixture.bundleId,
                                                     envelope: Self.envelope, collapseId: nil, expiration: 0)
        #expect(HapiAPNsAlert.outcome(await fixture.client.send(retried, environment: .production)) == .sent)
        #expect(fixture.fake.requests.map(\.status) == [403, 200])
        #expect(Set(fixture.receivedJWTs).count == 2)

        fixture.fake.clearRequests()
        fixture.fake.script(token: APNsFakeFixture.token(2), ScriptedResponse(status: 403, reason: .expiredProviderToken))
        let stubborn = try HapiAPNsAlert.notification(deviceToken: APNsFakeFixture.token(2), bundleId: APNsFakeFixture.bundleId,
                                                      envelope: Self.envelope, collapseId: nil, expiration: 0)
        #expect(HapiAPNsAlert.outcome(await fixture.client.send(stubborn, environment: .production)) == .failed(reason: "ExpiredProviderToken"))
        #expect(fixture.fake.requests.map(\.status) == [403, 403])
        await fixture.client.shutdown()
    }
}
