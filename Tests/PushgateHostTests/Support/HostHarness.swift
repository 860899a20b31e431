import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateCore
@testable import PushgateHost
import PushgateRelay
import PushgateTesting

/// The fake APNs, a real relay in front of it (real signature checks) and a host pointed at
/// it, all on one manual clock; the host's API listens on loopback.
final class HostHarness: Sendable {
    static let bundleId = "dev.pushgate.tests"
    static let keyId = "KEYID12345"
    static let teamId = "TEAMID1234"

    let clock: ManualClock
    let scheduler: ManualScheduler
    let fake: FakeAPNs
    let relay: RelayServer?
    let home: TemporaryHome
    let apnsKey: P256PrivateKey
    let caFile: String
    let logs = Logger.MemorySink()
    let service: HostService
    let api: HostAPI

    var relayURL: String { relay.map { "http://127.0.0.1:\($0.port)" } ?? "" }

    /// `mode` `relay` starts a relay; `apns` points the host's direct client at the fake.
    /// `relayURL` overrides the relay the host uses (a stub); `hostEnvironment` adds settings.
    init(mode: IOSPushMode = .relay, relayURL override: String? = nil, hostEnvironment: [String: String] = [:],
         relaySettings: [String: String] = [:], home existing: TemporaryHome? = nil) async throws {
        clock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        scheduler = ManualScheduler(clock: clock)
        apnsKey = P256PrivateKey()
        var fakeConfiguration = FakeAPNs.Configuration()
        fakeConfiguration.credentials = .init(publicKey: apnsKey.publicKey, keyId: Self.keyId, teamId: Self.teamId)
        fakeConfiguration.clock = clock
        fake = try FakeAPNs(configuration: fakeConfiguration)
        home = existing ?? TemporaryHome()
        let directory = home.path + "-relay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        caFile = directory + "/fake-apns-ca.pem"
        try fake.writeCertificate(to: caFile)
        let fakeOrigin = "https://127.0.0.1:\(fake.port)"
        var relayURL = override
        if mode == .relay && override == nil {
            var environment = try fake.relayEnvironment(
                apnsKey: apnsKey, keyId: Self.keyId, teamId: Self.teamId, bundleId: Self.bundleId, caFile: caFile,
                databasePath: directory + "/relay.sqlite")
            for limit in ["REGISTER_LIMIT_PER_MINUTE", "SEND_LIMIT_PER_MINUTE", "SERVER_SEND_LIMIT_PER_MINUTE"] {
                environment["PUSHGATE_RELAY_" + limit] = "100000"
            }
            for (name, value) in relaySettings { environment["PUSHGATE_RELAY_" + name] = value }
            let configuration = try RelayConfiguration(arguments: [], environment: environment)
            let logger = Logger(component: "relay", minimumLevel: .warning, sink: logs)
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
        environment["PUSHGATE_HOST_LISTEN"] = "127.0.0.1:0"
        if let relayURL { environment["PUSHGATE_PUSH_RELAY_URL"] = relayURL }
        if mode == .apns {
            environment.merge([
                "PUSHGATE_APNS_KEY_ID": Self.keyId, "PUSHGATE_APNS_TEAM_ID": Self.teamId, "PUSHGATE_APNS_BUNDLE_ID": Self.bundleId,
                "PUSHGATE_APNS_P8": try apnsKey.pkcs8PEM, "PUSHGATE_APNS_HOST_PRODUCTION": fakeOrigin,
                "PUSHGATE_APNS_HOST_SANDBOX": fakeOrigin, "PUSHGATE_APNS_CA_FILE": caFile,
            ]) { $1 }
        }
        let settings = try HostSettings.load(environment: home.environment(environment))
        let logger = Logger(component: "host", minimumLevel: .debug, sink: logs)
        service = try HostService(settings: settings, scheduler: scheduler, logger: logger, titles: try Fixtures.titles())
        try await service.start()
        api = try HostAPI(service: service, host: "127.0.0.1", port: 0, logger: logger)
    }

    func stop() async {
        await api.shutdown(grace: .seconds(1))
        await service.shutdown()
        if let relay { await relay.shutdown(graceSeconds: 1) }
        fake.stop()
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

    /// Registers an alert token through the API.
    func register(_ token: String, locale: String? = nil, environment: String? = nil) async throws {
        var body = JSONObject([("token", .string(token))])
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

    /// Alert payloads the fake received for `token`.
    func payloads(_ token: String) -> [JSONValue] { fake.requests.filter { $0.deviceToken == token }.compactMap(\.payload) }

    /// Log lines that contain any of `secrets`.
    func leaks(_ secrets: [String]) -> [String] { logs.lines.filter { line in secrets.contains { line.contains($0) } } }
}

/// Random device tokens of the relay's accepted form.
enum TestToken {
    static func make() -> String { Hex.encode(SecureRandom.bytes(32)) }
}
