import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PushgateCore
@testable import PushgateHost
@testable import PushgateRelay
import PushgateTesting

/// A host on one manual clock wired to the fake APNs over loopback: through a real relay (real
/// signature checks), through a relay whose URL is given (a stub or a scripted one), or
/// directly. With an Android mode, a fake FCM serves the host's direct FCM lane or the started
/// relay's Android lane; with `androidAlert` `direct` it serves the host's Android alert tokens,
/// with `relay` those of the relay it starts.
/// The host's API listens on loopback; a recording web fallback sees the branch of docs/hapi.md "Web Push gate and the dispatch result".
final class HostHarness: Sendable {
    static let bundleId = "dev.pushgate.tests"

    let clock: ManualClock
    let scheduler: ManualScheduler
    let apns: FakeAPNsFixture
    /// The fake FCM of Android mode `fcm` (the host's lane), of Android alert mode `direct`, or of
    /// the started relay's Android lane.
    let fakeFCM: FakeFCM?
    let relay: RelayServer?
    let home: TemporaryHome
    let logs = Logger.MemorySink()
    let web = RecordingWebFallback()
    let service: HostService
    let api: HostAPI

    var fake: FakeAPNs { apns.fake }
    /// A signal for every request the fake decides (``waitForFake(requests:)``).
    private let decided: AsyncStream<Void>
    private let decidedSignal: AsyncStream<Void>.Continuation
    var relayURL: String { relay.map { "http://127.0.0.1:\($0.port)" } ?? "" }

    /// `mode` `relay` starts a relay unless `relayURL` names one (a stub); `apns` points the
    /// host's direct client at the fake. `android`, when given, is the hapi path's Android mode
    /// (docs/hapi.md "Transports and settings"); `androidAlert` the Android alert tokens' mode (docs/host.md).
    /// `hostEnvironment` adds host settings, `relaySettings` relay ones (names without the
    /// prefix); `home` reuses a host home.
    init(mode: IOSPushMode = .relay, android: String? = nil, androidAlert: AndroidAlertPushMode? = nil,
         relayURL override: String? = nil, hostEnvironment: [String: String] = [:], relaySettings: [String: String] = [:],
         home existing: TemporaryHome? = nil) async throws {
        clock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        scheduler = ManualScheduler(clock: clock)
        home = existing ?? TemporaryHome()
        let directory = home.path + "-relay-" + UUID().uuidString
        let (decided, decidedSignal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (self.decided, self.decidedSignal) = (decided, decidedSignal)
        apns = try FakeAPNsFixture(clock: clock, directory: directory) { _ in decidedSignal.yield() }
        let startsRelay = mode == .relay && override == nil
        var fcmEnvironment: [String: String] = [:]
        if android == "fcm" || (android != nil && startsRelay) || androidAlert == .direct || (androidAlert == .relay && startsRelay) {
            let vector = try JSONValue.parse(Fixtures.bytes("vectors/rs256-oauth.json"))
            let fcm = try FakeFCMFixture(account: vector["serviceAccount"]?.objectValue ?? [:], clock: clock, directory: directory)
            fcmEnvironment = fcm.relayEnvironment
            fakeFCM = fcm.fake
        } else {
            fakeFCM = nil
        }
        var relayURL = override
        if startsRelay {
            var environment = try apns.relayEnvironment(bundleId: Self.bundleId, databasePath: directory + "/relay.sqlite")
            environment.merge(fcmEnvironment) { $1 }
            if androidAlert == .relay {
                // The relay's signed-route Android account: the same fake, under the ANDROID_ names.
                for (name, value) in fcmEnvironment {
                    environment[name.replacingOccurrences(of: "PUSHGATE_RELAY_FCM_", with: "PUSHGATE_RELAY_ANDROID_FCM_")] = value
                }
            }
            for limit in ["REGISTER_LIMIT_PER_MINUTE", "SEND_LIMIT_PER_MINUTE", "SERVER_SEND_LIMIT_PER_MINUTE"] {
                environment["PUSHGATE_RELAY_" + limit] = "100000"
            }
            for (name, value) in relaySettings { environment["PUSHGATE_RELAY_" + name] = value }
            let configuration = try RelayConfiguration(arguments: [], environment: environment)
            let logger = Logger(component: "relay", minimumLevel: .debug, sink: logs)
            let relay = try await RelayServer(configuration: configuration,
                                              channel: configuration.makeChannel(clock: clock, logger: logger),
                                              scheduler: scheduler, logger: logger)
            self.relay = relay
            relayURL = "http://127.0.0.1:\(relay.port)"
        } else {
            relay = nil
        }
        var environment = hostEnvironment
        environment["PUSHGATE_IOS_PUSH"] = mode.rawValue
        if let android { environment["PUSHGATE_ANDROID_PUSH"] = android }
        environment["PUSHGATE_HOST_LISTEN"] = "127.0.0.1:0"
        if let relayURL { environment["PUSHGATE_PUSH_RELAY_URL"] = relayURL }
        if android == "fcm" || androidAlert == .direct {
            // The host's own FCM lanes: the relay's variables without the relay prefix.
            for (name, value) in fcmEnvironment { environment[name.replacingOccurrences(of: "PUSHGATE_RELAY_", with: "PUSHGATE_")] = value }
        }
        if let androidAlert {
            environment["PUSHGATE_ANDROID_ALERT_PUSH"] = androidAlert.rawValue
            if androidAlert == .direct {
                environment["PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH"] = fcmEnvironment["PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH"]
            }
        }
        if mode == .apns { environment.merge(try apns.hostEnvironment(bundleId: Self.bundleId)) { $1 } }
        let settings = try HostSettings.load(environment: home.environment(environment))
        let logger = Logger(component: "host", minimumLevel: .debug, sink: logs)
        service = try HostService(settings: settings, scheduler: scheduler, logger: logger, webFallback: web)
        try await service.start()
        api = try HostAPI(service: service, host: "127.0.0.1", port: 0, logger: logger)
    }

    /// Runs `body` with a new harness (on a relay whose URL is given, or on one it starts, with
    /// `hostEnvironment`) and a new token, then stops the harness, whether `body` threw or not.
    static func with(relayURL: String? = nil, hostEnvironment: [String: String] = [:],
                     _ body: (HostHarness, String) async throws -> Void) async throws {
        let harness = try await HostHarness(relayURL: relayURL, hostEnvironment: hostEnvironment)
        var failure: (any Error)?
        do {
            try await body(harness, TestToken.make())
        } catch {
            failure = error
        }
        await harness.stop()
        if let failure { throw failure }
    }

    func stop() async {
        await api.shutdown(grace: .seconds(1))
        await service.shutdown()
        if let relay { await relay.shutdown(graceSeconds: 1) }
        fake.stop()
        decidedSignal.finish()
        fakeFCM?.stop()
        // A debounce window still open holds the event throttle, which holds this scheduler.
        scheduler.discardPending()
    }

    /// A host API call; `bearer` nil sends the right token, "" sends none.
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil, bearer: String? = nil,
              rawBody: [UInt8]? = nil) async throws -> (status: Int, json: JSONValue?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(api.port)\(path)")!)
        request.httpMethod = method
        if let bytes = rawBody ?? body.map({ $0.serializedBytes() }) { request.httpBody = Data(bytes) }
        let token = bearer ?? service.settings.accessToken
        if !token.isEmpty { request.setValue("Bearer \(token)", forHTTPHeaderField: "authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, try? JSONValue.parse(Array(data)))
    }

    /// The status and `allow` header of a request with `method` (any token) and no body or bearer.
    func methodAnswer(_ method: String, _ path: String) async throws -> (status: Int, allow: String?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(api.port)\(path)")!)
        request.httpMethod = method
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, http.value(forHTTPHeaderField: "allow"))
    }

    /// Registers an alert token through the API (an Android one with `platform` `android`).
    func register(_ token: String, platform: String? = nil, locale: String? = nil, environment: String? = nil) async throws {
        var body = JSONObject([("token", .string(token))])
        if let platform { body["platform"] = .string(platform) }
        if let locale { body["locale"] = .string(locale) }
        if let environment { body["environment"] = .string(environment) }
        let answer = try await call("POST", "/api/push/apns-token", .object(body))
        precondition(answer.status == 200, "register answered \(answer.status)")
    }

    /// Posts an event through the API and returns its dispatch result.
    func event(_ type: String, _ sessionId: String, name: String? = nil, extra: [(String, JSONValue)] = []) async throws -> JSONValue {
        var body = JSONObject([("type", .string(type)), ("sessionId", .string(sessionId))])
        if let name { body["sessionName"] = .string(name) }
        for (key, value) in extra { body[key] = value }
        return try await call("POST", "/api/events", .object(body)).json ?? .null
    }

    /// Requests the relay answered on `route` (`register`, `send`, …) with `status`.
    func relayCount(_ route: String, status: Int = 200) -> Int {
        relay?.service.metrics.requestCount(route: route, status: status) ?? 0
    }

    /// Returns once the fake has taken `count` requests in all (answered, or held by a scripted
    /// delay), or has stopped. One waiter at a time.
    func waitForFake(requests count: Int) async {
        guard fake.counters.requests < count else { return }
        for await _ in decided where fake.counters.requests >= count { return }
    }

    /// Alert payloads the fake received for `token`.
    func payloads(_ token: String) -> [JSONValue] { fake.requests.filter { $0.deviceToken == token }.compactMap(\.payload) }

    /// Log lines that contain any of `secrets`.
    func leaks(_ secrets: [String]) -> [String] { logs.lines.filter { line in secrets.contains { line.contains($0) } } }
}
