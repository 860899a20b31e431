import Foundation
import PushgateCore
import PushgateHTTP
import PushgateTesting

/// A running fake APNs plus a client pool that trusts it.
final class HTTP2FakeFixture: Sendable {
    let fake: FakeAPNs
    let pool: HTTP2ClientPool
    let origin: HTTP2Origin
    private let caFile: TemporaryFile
    private let decided: AsyncStream<Void>
    private let decidedSignal: AsyncStream<Void>.Continuation

    init(maxConcurrentStreams: Int = 1000, clock: any MonotonicClock = SystemMonotonicClock(), recording: FakeProviderRecording = .full,
         configure: (inout HTTP2ClientConfiguration) -> Void = { _ in }) throws {
        var fakeConfiguration = FakeAPNs.Configuration()
        fakeConfiguration.maxConcurrentStreams = maxConcurrentStreams
        fakeConfiguration.recording = recording
        let (decided, signal) = AsyncStream.makeStream(of: Void.self)
        fakeConfiguration.onRequest = { _ in signal.yield() }
        self.decided = decided
        decidedSignal = signal
        fake = try FakeAPNs(configuration: fakeConfiguration)
        caFile = try TemporaryFile(contents: fake.certificatePEM)
        var configuration = HTTP2ClientConfiguration(extraCAFile: caFile.path)
        configure(&configuration)
        pool = try HTTP2ClientPool(configuration: configuration, clock: clock, logger: Logger(component: "test", minimumLevel: .error))
        origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
    }

    deinit { stop() }

    /// Stops the fake; a ``waitForFake(requests:)`` under way returns.
    func stop() {
        fake.stop()
        decidedSignal.finish()
    }

    /// Returns once the fake has taken `count` requests in all (answered or held by a scripted
    /// delay), or has stopped. One waiter at a time.
    func waitForFake(requests count: Int) async {
        guard fake.counters.requests < count else { return }
        for await _ in decided where fake.counters.requests >= count { return }
    }

    /// A request the fake accepts as a valid alert push for `token`.
    func request(token: String, timeoutMilliseconds: Int64? = nil, body: [UInt8] = Array(#"{"aps":{"alert":{"title":"hi"}}}"#.utf8)) -> HTTP2Request {
        HTTP2Request(origin: origin, path: "/3/device/\(token)", headers: [
            HTTP2Header("authorization", "bearer \(Self.providerToken)"),
            HTTP2Header("apns-topic", "com.example.app"),
            HTTP2Header("apns-push-type", "alert"),
        ], body: body, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A structurally valid ES256 provider token issued now (the fake checks form and age, not the signature).
    static let providerToken: String = {
        let header: JSONValue = ["alg": "ES256", "kid": "KEY1234567"]
        let claims: JSONValue = ["iss": "TEAM123456", "iat": .integer(SystemClock().nowMilliseconds / 1000)]
        return [Base64URL.encode(Array(header.serialized().utf8)), Base64URL.encode(Array(claims.serialized().utf8)),
                Base64URL.encode([UInt8](repeating: 7, count: 64))].joined(separator: ".")
    }()

    /// A 64-hex-digit device token derived from `index`.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    /// Sends every request at once and returns the outcomes in the same order.
    func sendAll(_ requests: [HTTP2Request]) async -> [Result<HTTP2Response, HTTP2ClientError>] {
        await withTaskGroup(of: (Int, Result<HTTP2Response, HTTP2ClientError>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { [pool] in
                    do { return (index, .success(try await pool.send(request))) } catch let error as HTTP2ClientError {
                        return (index, .failure(error))
                    } catch {
                        return (index, .failure(HTTP2ClientError(.protocolError, detail: "unexpected \(error)")))
                    }
                }
            }
            var results = [Result<HTTP2Response, HTTP2ClientError>?](repeating: nil, count: requests.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }
}

/// The outcome of one `send`, as an error kind or a status, for compact expectations.
func outcome(_ result: Result<HTTP2Response, HTTP2ClientError>) -> String {
    switch result {
    case .success(let response): return "\(response.status)"
    case .failure(let error): return error.kind.name
    }
}
