import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PushgateCore
import PushgateProviders
import PushgateRelay
import PushgateTesting
import Synchronization
import Testing
import PushgateTestSupport

/// A real relay on loopback (HTTP server, SQLite file, APNs client) in front of the fake APNs,
/// with one manual clock for everything, and helpers to act as hosts.
final class RelayHarness: Sendable {
    static let bundleId = "dev.pushgate.tests"

    let clock: ManualClock
    let scheduler: ManualScheduler
    let apns: FakeAPNsFixture
    let relay: RelayServer
    let logs = Logger.MemorySink()
    let directory: URL
    let environment: [String: String]
    /// Called for every request the fake answers (on its I/O thread).
    let onFakeRequest = RequestHook()

    var fake: FakeAPNs { apns.fake }
    var baseURL: String { "http://127.0.0.1:\(relay.port)" }

    /// Starts the fake APNs and a relay configured by `settings` (names without the prefix);
    /// `clock` lets other fakes share the relay's clock; it also times the relay's provider requests
    /// unless `realDeadlines` (reconnect back-off then runs by itself, as in production).
    init(settings: [String: String] = [:], directory existing: URL? = nil,
         clock: ManualClock = ManualClock(milliseconds: SystemClock().nowMilliseconds), realDeadlines: Bool = false) async throws {
        self.clock = clock
        scheduler = ManualScheduler(clock: clock)
        directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString)")
        let hook = onFakeRequest
        apns = try FakeAPNsFixture(clock: clock, directory: directory.path) { request in hook.call(request) }
        var environment = try apns.relayEnvironment(bundleId: Self.bundleId,
                                                    databasePath: directory.appendingPathComponent("relay.sqlite").path)
        for (name, value) in settings { environment["PUSHGATE_RELAY_" + name] = value }
        self.environment = environment
        let configuration = try RelayConfiguration(arguments: [], environment: environment)
        let logger = Logger(component: "relay", minimumLevel: .debug, sink: logs)
        let deadlineClock: any MonotonicClock = realDeadlines ? SystemMonotonicClock() : clock
        relay = try await RelayServer(configuration: configuration,
                                      channel: configuration.makeChannel(clock: clock, deadlineClock: deadlineClock, logger: logger),
                                      scheduler: scheduler, deadlineClock: deadlineClock, logger: logger)
    }

    /// A host with a fresh identity (or the given key) talking to this relay.
    func host(_ key: P256PrivateKey = P256PrivateKey()) -> SignedRelayClient {
        SignedRelayClient(baseURL: baseURL, key: key, clock: clock)
    }

    /// Stops the relay and the fake; removes the data directory unless another harness will reuse it.
    func stop(keepFiles: Bool = false) async {
        await relay.shutdown(graceSeconds: 1)
        fake.stop()
        // A job that never came due holds what it captured, the relay among it, and so the scheduler.
        scheduler.discardPending()
        onFakeRequest.clear()
        if !keepFiles { try? FileManager.default.removeItem(at: directory) }
    }

    /// The relay's `/metrics` text, from its metrics listener.
    func metrics() async throws -> String {
        let port = try #require(relay.metricsPort)
        return try await onOwnThread { try RawHTTPConnection.scrapeMetrics(port: port) }
    }

    /// A raw request, for bodies no host would build.
    func request(_ method: String, _ path: String, body: [UInt8]? = nil,
                 headers: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return (http.statusCode, fields, Array(data))
    }

    /// Runs `operation` while moving the shared clock on in `stepMs` steps, so the APNs client's
    /// reconnect back-off (which reads the same clock) can elapse.
    func advancingClock<T: Sendable>(stepMs: Int64 = 100, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await operation() }
        let done = Task { _ = try? await task.value }
        var steps = 0
        while steps < 2_000 {
            let finished = await withTaskGroup(of: Bool.self) { group in
                group.addTask { await done.value; return true }
                group.addTask { await Task.yield(); return false }
                let first = await group.next()!
                group.cancelAll()
                return first
            }
            if finished { break }
            clock.advance(milliseconds: stepMs)
            steps += 1
        }
        return try await task.value
    }

    /// Requests the fake received for `token`.
    func received(_ token: String) -> [RecordedRequest] { fake.requests.filter { $0.deviceToken == token } }
}

extension RelayReply {
    /// The `(token, ok, drop)` rows, for compact expectations.
    var rows: [String] { results.map { "\($0.token.prefix(6)):\($0.ok)\($0.drop ? ":drop" : "")" } }
}

extension RelayHarness {
    /// Stops everything and returns the secrets found in the relay's log lines (expected empty):
    /// device tokens, provider tokens, titles and bodies the fake saw, the `.p8` text, and `extra`.
    func stopAndFindLeaks(extra: [String] = []) async -> [String] {
        await stop()
        var secrets = extra
        for request in fake.requests {
            if let token = request.deviceToken { secrets.append(token) }
            if let bearer = request.header("authorization") { secrets.append(String(bearer.dropFirst("bearer ".count))) }
            if let alert = request.payload?["aps"]?["alert"] {
                secrets += [alert["title"]?.stringValue, alert["body"]?.stringValue].compactMap { $0 }.filter { $0.count >= 4 }
            }
        }
        if let p8 = environment["PUSHGATE_RELAY_APNS_P8"] {
            secrets += p8.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        }
        let lines = logs.lines
        return secrets.filter { secret in lines.contains { $0.contains(secret) } }
    }
}

/// A replaceable callback for the fake's requests.
final class RequestHook: Sendable {
    private let body = Mutex<(@Sendable (RecordedRequest) -> Void)?>(nil)

    func set(_ callback: @escaping @Sendable (RecordedRequest) -> Void) { body.withLock { $0 = callback } }
    func call(_ request: RecordedRequest) { body.withLock { $0 }?(request) }
    /// Drops the callback: one that captured the fake would keep it, and the fake this hook.
    func clear() { body.withLock { $0 = nil } }
}
