import Foundation
@testable import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

@Suite("APNs client against the fake APNs", .hangLimit(.minutes(1)))
struct APNsClientTests {
    static let minute: Int64 = 60_000

    @Test("each APNs answer maps to delivered, dead or transient")
    func outcomeTable() async throws {
        let fixture = try APNsFakeFixture()
        let scripts: [(ScriptedResponse?, APNsOutcome)] = [
            (nil, .delivered),
            (ScriptedResponse(status: 410, reason: .unregistered), .dead(reason: "Unregistered")),
            (ScriptedResponse(status: 400, reason: .badDeviceToken), .dead(reason: "BadDeviceToken")),
            (ScriptedResponse(status: 400, reason: .deviceTokenNotForTopic), .dead(reason: "DeviceTokenNotForTopic")),
            (ScriptedResponse(status: 400, reason: .unregistered), .dead(reason: "Unregistered")),
            (ScriptedResponse(status: 429, reason: .tooManyRequests), .transient(reason: "TooManyRequests", failure: .throttled(retryAfterSeconds: nil))),
            (ScriptedResponse(status: 500, reason: .internalServerError), .transient(reason: "InternalServerError", failure: .unavailable(retryAfterSeconds: nil))),
            (ScriptedResponse(status: 503, reason: .serviceUnavailable), .transient(reason: "ServiceUnavailable", failure: .unavailable(retryAfterSeconds: nil))),
            (ScriptedResponse(status: 403, reason: .invalidProviderToken), .transient(reason: "InvalidProviderToken", failure: .rejected)),
            (ScriptedResponse(status: 400, reason: .badTopic), .transient(reason: "BadTopic", failure: .rejected)),
        ]
        for (index, script) in scripts.enumerated() { fixture.fake.script(token: APNsFakeFixture.token(index), script.0) }
        let outcomes = await fixture.sendAll(try scripts.indices.map { try fixture.alert($0) })
        #expect(outcomes == scripts.map(\.1))
        await fixture.client.shutdown()
        #expect(fixture.logs.lines.contains { $0.contains("dead") && $0.contains("reason=BadDeviceToken") })
    }

    @Test("the fake's own validation accepts our alert and Live Activity requests, headers as sent")
    func headersOnTheWire() async throws {
        let fixture = try APNsFakeFixture()
        let alert = try fixture.alert(1, collapseId: "session-1")
        let plain = try fixture.alert(2)
        let live = try APNsNotification.liveActivity(deviceToken: APNsFakeFixture.token(3), bundleId: APNsFakeFixture.bundleId,
                                                     payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8), priority: 5)
        #expect(await fixture.client.send(alert, environment: .production) == .delivered)
        #expect(await fixture.client.send(plain, environment: .production) == .delivered)
        #expect(await fixture.client.send(live, environment: .sandbox) == .delivered)
        let records = fixture.fake.requests
        try #require(records.count == 3)
        #expect(records[0].headers.map(\.name) == ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id"])
        #expect(records[0].header("apns-collapse-id") == "session-1")
        #expect(records[0].header("apns-push-type") == "alert")
        #expect(records[0].header("apns-priority") == "10")
        #expect(records[0].header("apns-expiration") == "0")
        #expect(records[0].path == "/3/device/\(APNsFakeFixture.token(1))")
        #expect(records[1].header("apns-collapse-id") == nil)
        #expect(records[2].header("apns-topic") == "com.example.app.push-type.liveactivity")
        #expect(records[2].header("apns-push-type") == "liveactivity")
        #expect(records[2].header("apns-priority") == "5")
        #expect(records[2].header("apns-collapse-id") == nil)
        let jwt = try #require(fixture.receivedJWTs.first)
        let parts = try #require(JWT.verifyES256(jwt, publicKey: fixture.key.publicKey))
        #expect(parts.header["kid"] == "KEY1234567")
        #expect(parts.claims["iss"] == "TEAM123456")
        await fixture.client.shutdown()
    }

    @Test("a request the fake finds invalid is transient with the fake's reason")
    func invalidForAPNs() async throws {
        let fixture = try APNsFakeFixture()
        // A Live Activity push type with a plain topic: APNs answers 400 BadTopic.
        let notification = try APNsNotification(deviceToken: APNsFakeFixture.token(1), topic: APNsFakeFixture.bundleId,
                                                pushType: .liveActivity, payload: APNsFakeFixture.payload)
        #expect(await fixture.client.send(notification, environment: .production) == .transient(reason: "BadTopic", failure: .rejected))
        await fixture.client.shutdown()
    }

    @Test("production and sandbox go to their own origins")
    func environments() async throws {
        let certificate = try SelfSignedCertificate.generate()
        var sandboxConfiguration = FakeAPNs.Configuration()
        sandboxConfiguration.certificate = certificate
        let sandbox = try FakeAPNs(configuration: sandboxConfiguration)
        let fixture = try APNsFakeFixture(certificate: certificate) { $0.sandboxOrigin = HTTP2Origin(host: "127.0.0.1", port: sandbox.port) }
        #expect(await fixture.client.send(try fixture.alert(1), environment: .production) == .delivered)
        #expect(await fixture.client.send(try fixture.alert(2), environment: .sandbox) == .delivered)
        #expect(await fixture.client.send(try fixture.alert(3), environment: .sandbox) == .delivered)
        #expect(fixture.fake.requests.compactMap(\.deviceToken) == [APNsFakeFixture.token(1)])
        #expect(sandbox.requests.compactMap(\.deviceToken) == [APNsFakeFixture.token(2), APNsFakeFixture.token(3)])
        #expect(fixture.client.statistics(for: .sandbox).connections == 1)
        await fixture.client.shutdown()
        sandbox.stop()
    }

    @Test("one JWT for many requests; a new one after 50 minutes; ExpiredProviderToken renews at most once per 20 minutes")
    func providerTokenLifecycle() async throws {
        let clock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        let fixture = try APNsFakeFixture(fakeClock: clock, clientClock: clock)
        _ = await fixture.sendAll(try (0..<20).map { try fixture.alert($0) })
        #expect(Set(fixture.receivedJWTs).count == 1)

        clock.advance(milliseconds: 49 * Self.minute)
        #expect(await fixture.client.send(try fixture.alert(100), environment: .production) == .delivered)
        #expect(Set(fixture.receivedJWTs).count == 1)

        clock.advance(milliseconds: 1 * Self.minute)
        #expect(await fixture.client.send(try fixture.alert(101), environment: .production) == .delivered)
        let jwts = fixture.receivedJWTs
        #expect(Set(jwts).count == 2)
        let first = try #require(JWT.verifyES256(jwts[0], publicKey: fixture.key.publicKey))
        let renewed = try #require(JWT.verifyES256(jwts.last!, publicKey: fixture.key.publicKey))
        #expect(renewed.claims["iat"]?.int64Value == first.claims["iat"]!.int64Value! + 3000)

        // APNs keeps saying "expired" for one device: 10 minutes after the renewal no new token
        // is made (the retry reuses it); at 20 minutes one is.
        let stubborn = APNsFakeFixture.token(200)
        fixture.fake.script(token: stubborn, ScriptedResponse(status: 403, reason: .expiredProviderToken))
        clock.advance(milliseconds: 10 * Self.minute)
        #expect(await fixture.client.send(try fixture.alert(200), environment: .production) == .transient(reason: "ExpiredProviderToken", failure: .rejected))
        let early = fixture.receivedJWTs(for: stubborn)
        #expect(early.count == 2)
        #expect(Set(early).count == 1)
        #expect(Set(fixture.receivedJWTs).count == 2)

        clock.advance(milliseconds: 10 * Self.minute)
        #expect(await fixture.client.send(try fixture.alert(200), environment: .production) == .transient(reason: "ExpiredProviderToken", failure: .rejected))
        let late = Array(fixture.receivedJWTs(for: stubborn).dropFirst(2))
        #expect(late.count == 2)
        #expect(Set(late).count == 2)
        #expect(Set(fixture.receivedJWTs).count == 3)
        await fixture.client.shutdown()
    }

    @Test("ExpiredProviderToken: renewed and retried once (delivered); when renewal is not yet allowed, transient")
    func expiredProviderToken() async throws {
        // The client's clock runs 61 minutes behind the fake's, so its tokens look an hour old to the fake.
        let fakeClock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        let clientClock = ManualClock(milliseconds: fakeClock.nowMilliseconds - 61 * Self.minute)
        let fixture = try APNsFakeFixture(fakeClock: fakeClock, clientClock: clientClock)

        // A brand-new token may not be renewed: one retry with the same token, then transient.
        #expect(await fixture.client.send(try fixture.alert(1), environment: .production) == .transient(reason: "ExpiredProviderToken", failure: .rejected))
        #expect(fixture.fake.requests.map(\.status) == [403, 403])
        #expect(Set(fixture.receivedJWTs).count == 1)

        // 21 minutes later the token may be renewed: the retry carries a fresh one (40 minutes old to the fake).
        clientClock.advance(milliseconds: 21 * Self.minute)
        #expect(await fixture.client.send(try fixture.alert(2), environment: .production) == .delivered)
        #expect(fixture.fake.requests.map(\.status) == [403, 403, 403, 200])
        #expect(Set(fixture.receivedJWTs).count == 2)
        await fixture.client.shutdown()
    }

    @Test("with SETTINGS_MAX_CONCURRENT_STREAMS 10 the fake never sees more than 10 open streams")
    func streamLimit() async throws {
        let fixture = try APNsFakeFixture(maxConcurrentStreams: 10) { $0.http2.maxConnectionsPerOrigin = 1 }
        for index in 0..<50 { fixture.fake.script(token: APNsFakeFixture.token(index), .success(afterMilliseconds: 20)) }
        let outcomes = await fixture.sendAll(try (0..<50).map { try fixture.alert($0) })
        #expect(outcomes == Array(repeating: .delivered, count: 50))
        #expect(fixture.fake.counters.maxConcurrentStreamsSeen == 10)
        await fixture.client.shutdown()
    }

    @Test("GOAWAY mid-burst: every push delivered, each exactly once")
    func goaway() async throws {
        let fixture = try APNsFakeFixture()
        fixture.fake.goAway(afterStreams: 30)
        let outcomes = await fixture.sendAll(try (0..<50).map { try fixture.alert($0) })
        #expect(outcomes == Array(repeating: .delivered, count: 50))
        #expect(fixture.fake.requests.compactMap(\.deviceToken).sorted() == (0..<50).map(APNsFakeFixture.token).sorted())
        #expect(fixture.fake.counters.goAwaysSent >= 1)
        await fixture.client.shutdown()
    }

    @Test("an answer later than the deadline is transient (timeout); the connection stays usable")
    func deadline() async throws {
        let fixture = try APNsFakeFixture { $0.http2.requestTimeoutMilliseconds = 200 }
        fixture.fake.script(token: APNsFakeFixture.token(1), .success(afterMilliseconds: 10_000))
        #expect(await fixture.client.send(try fixture.alert(1), environment: .production) == .transient(reason: "timeout", failure: .unanswered))
        #expect(await fixture.client.send(try fixture.alert(2), environment: .production) == .delivered)
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        await fixture.client.shutdown()
    }

    @Test("a dropped connection makes its push transient; the next push reconnects")
    func serverDrop() async throws {
        let fixture = try APNsFakeFixture()
        fixture.fake.dropConnections(afterStreams: 2)
        #expect(await fixture.client.send(try fixture.alert(1), environment: .production) == .delivered)
        #expect(await fixture.client.send(try fixture.alert(2), environment: .production) == .transient(reason: "connection lost", failure: .unanswered))
        fixture.fake.dropConnections(afterStreams: nil)
        #expect(await fixture.client.send(try fixture.alert(3), environment: .production) == .delivered)
        #expect(fixture.fake.counters.connectionsAccepted == 2)
        await fixture.client.shutdown()
    }

    @Test("an untrusted certificate: transient, and the log says why")
    func untrustedCertificate() async throws {
        let fake = try FakeAPNs()
        let logs = Logger.MemorySink()
        let origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
        let client = try APNsClient(configuration: APNsConfiguration(privateKey: P256PrivateKey(), keyId: "KEY1234567", teamId: "TEAM123456",
                                                                     productionOrigin: origin, sandboxOrigin: origin),
                                    logger: Logger(component: "test", sink: logs))
        let notification = try APNsNotification.alert(deviceToken: APNsFakeFixture.token(1), bundleId: "b", payload: APNsFakeFixture.payload)
        #expect(await client.send(notification, environment: .production) == .transient(reason: "connect failed", failure: .notSent))
        #expect(logs.lines.contains { $0.contains("certificate not trusted") })
        #expect(fake.requests.isEmpty)
        await client.shutdown()
        fake.stop()
    }

    @Test("no log line holds a device token or a provider token")
    func logsAreRedacted() async throws {
        let fixture = try APNsFakeFixture { $0.http2.requestTimeoutMilliseconds = 300 }
        fixture.fake.script(token: APNsFakeFixture.token(1), .unregistered)
        fixture.fake.script(token: APNsFakeFixture.token(2), ScriptedResponse(status: 500, reason: .internalServerError))
        fixture.fake.script(token: APNsFakeFixture.token(3), .success(afterMilliseconds: 5_000))
        fixture.fake.script(token: APNsFakeFixture.token(4), ScriptedResponse(status: 403, reason: .expiredProviderToken))
        _ = await fixture.sendAll(try (0..<5).map { try fixture.alert($0) })
        await fixture.client.shutdown()
        let lines = fixture.logs.lines
        #expect(!lines.isEmpty)
        let secrets = (0..<5).map(APNsFakeFixture.token) + fixture.receivedJWTs
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) })
        }
        #expect(lines.contains { $0.contains("token=\(Redact.token(APNsFakeFixture.token(1)))") })
    }
}
