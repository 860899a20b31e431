import Foundation
import PushgateCore
import PushgateTesting
import Testing
import PushgateTestSupport

/// The real `pushgate-relay` binary in front of a fake APNs for production and one for
/// sandbox (Apple answers `BadDeviceToken` to a token sent to the other environment), and
/// clients that connect from any loopback address, so one test plays many attackers and a
/// legitimate host at once (docs/security.md).
final class RelayUnderAttack: Sendable {
    static let bundleId = "dev.pushgate.attacks"

    let production: FakeAPNs
    let sandbox: FakeAPNs
    let directory: URL
    let environment: [String: String]
    private let process: RelayProcess
    let port: UInt16
    /// The port of the metrics listener (`METRICS_LISTEN` 127.0.0.1:0).
    let metricsPort: UInt16

    /// Starts the fakes and the relay with `settings` (names without the prefix); with
    /// `gateway`, the gateway routes are on too.
    init(settings: [String: String] = [:], gateway: Bool = false, directory existing: URL? = nil) async throws {
        directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("attack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Both fakes present one certificate, so one CA file trusts both.
        let providerKey = P256PrivateKey()
        var configuration = FakeAPNs.Configuration()
        configuration.credentials = .init(publicKey: providerKey.publicKey, keyId: FakeAPNsFixture.keyId, teamId: FakeAPNsFixture.teamId)
        configuration.certificate = try SelfSignedCertificate.generate()
        production = try FakeAPNs(configuration: configuration)
        sandbox = try FakeAPNs(configuration: configuration)
        let caFile = directory.appendingPathComponent("fake-apns-ca.pem").path
        try production.writeCertificate(to: caFile)
        var environment = try production.relayEnvironment(apnsKey: providerKey, keyId: FakeAPNsFixture.keyId,
                                                          teamId: FakeAPNsFixture.teamId, bundleId: Self.bundleId, caFile: caFile,
                                                          databasePath: directory.appendingPathComponent("relay.sqlite").path)
        environment["PUSHGATE_RELAY_APNS_HOST_SANDBOX"] = sandbox.origin
        for (name, value) in settings { environment["PUSHGATE_RELAY_" + name] = value }
        if gateway { environment["PUSHGATE_GATEWAY_PUBLIC_URL"] = "https://gateway.pushgate.test" }
        self.environment = environment
        process = try RelayProcess(environment: environment)
        guard let port = try await onOwnThread({ [process] in process.port() }) else {
            throw HarnessFailure("the relay did not start: \(process.exitStatus().stderr)")
        }
        self.port = UInt16(port)
        guard let metricsPort = process.metricsPort() else {
            throw HarnessFailure("the relay printed no metrics line")
        }
        self.metricsPort = UInt16(metricsPort)
    }

    /// The relay's clock is the system's (shifted by `TEST_CLOCK_OFFSET_MS` when set).
    var nowMs: Int64 {
        SystemClock().nowMilliseconds + Int64(environment["PUSHGATE_RELAY_TEST_CLOCK_OFFSET_MS"] ?? "0")!
    }

    /// Posts `body` to `/v1/push/<route>` from `source`, on a connection of its own; `headers`
    /// are whole lines.
    func post(_ route: String, _ body: [UInt8], from source: String = "127.0.0.1",
              headers: [String] = []) throws -> RawHTTPConnection.Response {
        try request("POST", "/v1/push/" + route, body: body, headers: headers, from: source)
    }

    /// Posts hapi's `POST /v1/push` for `token` from `source`.
    func hapiPush(_ token: String, from source: String = "127.0.0.1") throws -> RawHTTPConnection.Response {
        try request("POST", "/v1/push", body: HapiPushHarness.body(token: token), from: source)
    }

    /// One request from `source`, on a connection of its own; `headers` are whole lines.
    func request(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String] = [],
                 from source: String = "127.0.0.1") throws -> RawHTTPConnection.Response {
        let client = try RawHTTPConnection(port: port, source: source)
        client.sendUnlessClosed(RawHTTPConnection.request(method, path, body: body, headers: headers + ["Connection: close"]))
        return try client.readResponse()
    }

    /// The relay's `/metrics` text, from its metrics listener.
    func metrics() throws -> String { try RawHTTPConnection.scrapeMetrics(port: metricsPort) }

    /// Pushes the production fake accepted for `token`.
    func delivered(_ token: String) -> Int { production.requests.filter { $0.deviceToken == token && $0.status == 200 }.count }

    /// Kills the relay with SIGKILL and waits for it.
    func kill() async throws {
        process.signal(SIGKILL)
        _ = try await onOwnThread { [process] in process.exitStatus() }
    }

    /// Stops the relay (SIGTERM, expecting exit 0) and the fakes; removes the files unless kept.
    func stop(keepFiles: Bool = false) async throws {
        process.signal(SIGTERM)
        let status = try await onOwnThread { [process] in process.exitStatus().status }
        #expect(status == 0 || status == 128 + SIGKILL)
        production.stop()
        sandbox.stop()
        if !keepFiles { try? FileManager.default.removeItem(at: directory) }
    }
}

/// A signing host as an attacker or a user plays it: its key, and the bodies it signs.
struct SigningHost: Sendable {
    let key = P256PrivateKey()
    var signer: RelayRequestSigner { RelayRequestSigner(key: key) }

    func register(_ token: String, at ts: Int64) throws -> [UInt8] { try signer.registerToken(token, ts: ts) }

    func send(_ tokens: [String], title: String = "agent needs you", environment: String? = nil, at ts: Int64) throws -> [UInt8] {
        try signer.send(tokens: tokens, title: title, environment: environment, ts: ts)
    }
}

extension RawHTTPConnection.Response {
    /// The `error` code, or the `reason` of each result row.
    var errorCode: String? { (try? JSONValue.parse(body))?["error"]?.stringValue }
    var rows: [(ok: Bool, reason: String?)] {
        ((try? JSONValue.parse(body))?["results"]?.arrayValue ?? []).map { ($0["ok"]?.boolValue ?? false, $0["reason"]?.stringValue) }
    }
}

/// The `n`-th address of 127.1.0.0/16, a client of its own.
func attacker(_ n: Int) -> String { "127.1.\(n / 250).\(n % 250 + 1)" }
