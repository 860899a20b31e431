import Foundation
import PushgateCore
import PushgateHTTP
import PushgateTesting
import Synchronization

/// A running fake APNs that checks provider tokens against the fixture key, plus an HTTP/2
/// client pool that trusts its certificate — the real loopback path every test here uses.
final class LoopbackHarness: Sendable {
    let fake: FakeAPNs
    let pool: HTTP2ClientPool
    let origin: HTTP2Origin
    let clock: ManualClock
    let key: P256PrivateKey
    let vector: TestFixtures.ProviderToken
    /// The fake's certificate, for clients besides ``pool``.
    let caFile: URL
    private let taken: AsyncStream<Void>

    init(_ configure: (inout FakeAPNs.Configuration) -> Void = { _ in }) throws {
        vector = try TestFixtures.providerToken()
        key = try P256PrivateKey(pkcs8PEM: vector.p8PEM)
        clock = ManualClock(milliseconds: vector.issuedAt * 1000)
        var configuration = FakeAPNs.Configuration()
        configuration.credentials = FakeAPNs.ProviderCredentials(publicKey: key.publicKey, keyId: vector.keyId, teamId: vector.teamId)
        configuration.clock = clock
        let (taken, signal) = AsyncStream.makeStream(of: Void.self)
        self.taken = taken
        configuration.onRequest = { _ in signal.yield() }
        configure(&configuration)
        fake = try FakeAPNs(configuration: configuration)
        caFile = FileManager.default.temporaryDirectory.appendingPathComponent("fake-apns-\(UUID().uuidString).pem")
        try fake.certificatePEM.write(to: caFile, atomically: true, encoding: .utf8)
        var clientConfiguration = HTTP2ClientConfiguration(extraCAFile: caFile.path)
        clientConfiguration.reconnectBaseDelayMilliseconds = 1
        pool = try HTTP2ClientPool(configuration: clientConfiguration, logger: Logger(component: "test", minimumLevel: .error))
        origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
    }

    deinit {
        fake.stop()
        try? FileManager.default.removeItem(at: caFile)
    }

    /// A provider token signed by the fixture key, issued at the harness clock's now.
    func providerToken() -> String {
        APNsProviderToken.make(key: key, keyId: vector.keyId, teamId: vector.teamId, issuedAt: clock.nowMilliseconds / 1000)
    }

    /// An alert push APNs accepts; `change` edits it.
    func request(token: String = LoopbackHarness.token(1), _ change: (inout HTTP2Request) -> Void = { _ in }) -> HTTP2Request {
        var request = HTTP2Request(origin: origin, path: "/3/device/\(token)", headers: [
            HTTP2Header("authorization", "bearer \(providerToken())"),
            HTTP2Header("apns-topic", "com.example.app"),
            HTTP2Header("apns-push-type", "alert"),
            HTTP2Header("apns-priority", "10"),
        ], body: Array(#"{"aps":{"alert":{"title":"hi"}}}"#.utf8))
        change(&request)
        return request
    }

    func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await pool.send(request)
    }

    /// Returns once the fake has decided `count` requests in all (one waiter at a time).
    func waitForFake(requests count: Int) async {
        guard fake.counters.requests < count else { return }
        for await _ in taken where fake.counters.requests >= count { return }
    }

    /// A 64-hex-digit device token derived from `index`.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "a", count: 64 - hex.count) + hex
    }
}

extension HTTP2Request {
    /// Replaces (or with nil removes) header `name`.
    mutating func set(_ name: String, _ value: String?) {
        headers.removeAll { $0.name == name }
        if let value { headers.append(HTTP2Header(name, value)) }
    }
}

extension HTTP2Response {
    /// The `reason` of an error body, nil when there is none.
    var reason: String? {
        guard !body.isEmpty else { return nil }
        return (try? JSONValue.parse(body))?["reason"]?.stringValue
    }
}
