import Foundation
@testable import PushgateCore
import PushgateHTTP
@testable import PushgateRelay
import PushgateStore
import PushgateTesting
import Testing
import PushgateTestSupport

/// A relay with the gateway routes on, in front of the fake APNs, on loopback with one manual
/// clock and scheduler; plus Orca-style hosts that talk to it over real sockets.
final class GatewayHarness: Sendable {
    /// The origin bound into challenges (the vector's); hosts are configured with the same.
    static let origin = "https://gateway.pushgate.test"
    static let bundleId = "dev.pushgate.gateway-tests"

    let clock: ManualClock
    let scheduler: ManualScheduler
    let fake: FakeAPNs
    /// The fake FCM of the Android lane, when asked for.
    let fcm: FakeFCM?
    let relay: RelayServer
    let logs = Logger.MemorySink()
    let directory: URL

    var gateway: RelayGateway { relay.gateway! }
    var port: UInt16 { relay.port }
    var databasePath: String { directory.appendingPathComponent("relay.sqlite").path }

    /// Starts the fake APNs and a relay with the gateway on; `settings` are `PUSHGATE_GATEWAY_*`
    /// names without the prefix (PUBLIC_URL defaults to ``origin``).
    /// A gateway relay's environment on `fake`: the fake's CA file and the relay's SQLite file in
    /// `directory`, the gateway's public URL.
    static func relayEnvironment(fake: FakeAPNs, apnsKey: P256PrivateKey, directory: URL) throws -> [String: String] {
        let caFile = directory.appendingPathComponent("fake-apns-ca.pem").path
        try fake.writeCertificate(to: caFile)
        var environment = try fake.relayEnvironment(apnsKey: apnsKey, keyId: "KEYID12345", teamId: "TEAMID1234",
                                                    bundleId: bundleId, caFile: caFile,
                                                    databasePath: directory.appendingPathComponent("relay.sqlite").path)
        environment["PUSHGATE_GATEWAY_PUBLIC_URL"] = origin
        return environment
    }

    /// The manual clock starts at `startMs` (the vector's `issuedAt` by default). With `fcm`, a
    /// fake FCM serves the Android lane with the `rs256-oauth.json` service account's project.
    /// `relaySettings` are `PUSHGATE_RELAY_*` names without the prefix (`DATABASE_URL`). With
    /// `directory`, the relay's files (its SQLite database) are those of an earlier harness there.
    init(settings: [String: String] = [:], relaySettings: [String: String] = [:], startMs: Int64 = 1_764_669_600_000,
         fcm withFCM: Bool = false, directory existing: URL? = nil) async throws {
        clock = ManualClock(milliseconds: startMs)
        scheduler = ManualScheduler(clock: clock)
        let apnsKey = P256PrivateKey()
        var fakeConfiguration = FakeAPNs.Configuration()
        fakeConfiguration.credentials = .init(publicKey: apnsKey.publicKey, keyId: "KEYID12345", teamId: "TEAMID1234")
        fakeConfiguration.clock = clock
        fake = try FakeAPNs(configuration: fakeConfiguration)
        directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = try Self.relayEnvironment(fake: fake, apnsKey: apnsKey, directory: directory)
        if withFCM {
            let account = try HapiPushHarness.serviceAccountObject()
            var configuration = FakeFCM.Configuration()
            configuration.credentials = try FakeFCM.Credentials(account: try ServiceAccount(object: account))
            configuration.clock = clock
            let fake = try FakeFCM(configuration: configuration)
            let accountPath = directory.appendingPathComponent("service-account.json").path
            let fcmCA = directory.appendingPathComponent("fake-fcm-ca.pem").path
            try JSONValue.object(account).serialized().write(toFile: accountPath, atomically: true, encoding: .utf8)
            try fake.certificatePEM.write(toFile: fcmCA, atomically: true, encoding: .utf8)
            environment.merge(fake.relayEnvironment(serviceAccountPath: accountPath, caFile: fcmCA)) { $1 }
            environment["PUSHGATE_GATEWAY_FCM_PROJECT_ID"] = account["project_id"]?.stringValue
            fcm = fake
        } else {
            fcm = nil
        }
        for (name, value) in settings { environment["PUSHGATE_GATEWAY_" + name] = value }
        for (name, value) in relaySettings { environment["PUSHGATE_RELAY_" + name] = value }
        let configuration = try RelayConfiguration(arguments: [], environment: environment)
        let logger = Logger(component: "relay", minimumLevel: .debug, sink: logs)
        relay = try await RelayServer(configuration: configuration,
                                      channel: configuration.makeChannel(clock: clock, logger: logger),
                                      scheduler: scheduler, logger: logger)
    }

    /// Shuts the relay down and stops the fakes; removes the directory unless it is kept for
    /// another harness.
    func stop(keepingFiles: Bool = false) async {
        await relay.shutdown(graceSeconds: 1)
        fake.stop()
        fcm?.stop()
        // A job that never came due holds what it captured, the relay among it, and so the scheduler.
        scheduler.discardPending()
        if !keepingFiles { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: - HTTP

    /// One answer: status, body, and the body as JSON when it is JSON.
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var json: JSONValue? { try? JSONValue.parse(body) }
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The `error` code of an error body.
        var error: String? { json?["error"]?.stringValue }
    }

    /// One request over a fresh loopback connection from `source` (run on its own thread).
    func call(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String] = [],
              from source: String? = nil) async throws -> Reply {
        let port = port
        return try await onOwnThread {
            let client = try RawHTTPConnection(port: port, source: source)
            client.sendUnlessClosed(RawHTTPConnection.request(method, path, body: body, headers: headers))
            let response = try client.readResponse()
            return Reply(status: response.status, headers: response.headers, body: response.body)
        }
    }

    /// The relay's `/metrics` text, from its metrics listener.
    func metrics() async throws -> String {
        let port = try #require(relay.metricsPort)
        return try await onOwnThread { try RawHTTPConnection.scrapeMetrics(port: port) }
    }

    /// A JSON request, with the session's bearer when given.
    func call(_ method: String, _ path: String, json: JSONValue? = nil, session: String? = nil,
              headers: [String] = [], from source: String? = nil) async throws -> Reply {
        var lines = headers
        if let session { lines.append("Authorization: Bearer \(session)") }
        if json != nil { lines.append("Content-Type: application/json") }
        return try await call(method, path, body: json.map { $0.serializedBytes() }, headers: lines, from: source)
    }

    // MARK: - Hosts

    /// A new Orca-style host (fresh X25519 key) configured for ``origin``.
    func newHost() throws -> HostChallengeAnswerer {
        HostChallengeAnswerer(keyPair: try BoxKeyPair.generate(), gatewayOrigin: Self.origin)
    }

    /// `POST /v1/host/challenge` for `host`.
    func challenge(_ host: HostChallengeAnswerer, headers: [String] = [], from source: String? = nil) async throws -> Reply {
        try await call("POST", "/v1/host/challenge", json: host.challengeRequest, headers: headers, from: source)
    }

    /// The challenge answer parsed as a host does.
    func issuedChallenge(_ host: HostChallengeAnswerer, from source: String? = nil) async throws -> GatewayChallenge {
        let reply = try await challenge(host, from: source)
        guard reply.status == 200, let json = reply.json else { throw HarnessFailure("challenge answered \(reply.status) \(reply.text)") }
        return try GatewayChallenge(json: json)
    }

    /// `POST /v1/host/session` with a proof.
    func answer(_ host: HostChallengeAnswerer, challengeId: String, proof: [UInt8], from source: String? = nil) async throws -> Reply {
        try await call("POST", "/v1/host/session", json: host.sessionRequest(challengeId: challengeId, proof: proof), from: source)
    }

    /// Challenge, host checks, proof: the session answer, whatever it is.
    func openSession(_ host: HostChallengeAnswerer, from source: String? = nil) async throws -> Reply {
        let challenge = try await issuedChallenge(host, from: source)
        let proof = try host.answer(challenge, nowMs: clock.nowMilliseconds)
        return try await answer(host, challengeId: challenge.challengeId, proof: proof, from: source)
    }

    /// Challenge, host checks, proof and session: the session token.
    func handshake(_ host: HostChallengeAnswerer, from source: String? = nil) async throws -> String {
        let reply = try await openSession(host, from: source)
        guard reply.status == 200, let json = reply.json else { throw HarnessFailure("session answered \(reply.status) \(reply.text)") }
        return try host.acceptSession(json).sessionToken
    }

    /// A registration body; iOS unless `androidToken` is given.
    static func device(_ deviceId: String, token: String = Hex.encode(SecureRandom.bytes(32)), environment: String? = "sandbox",
                       platform: String = "ios") -> JSONValue {
        var object = JSONObject([("v", 1), ("deviceId", .string(deviceId)), ("platform", .string(platform)), ("token", .string(token))])
        if let environment { object["apnsEnvironment"] = .string(environment) }
        object["filter"] = ["sources": ["agent-task-complete", "terminal-bell"], "agentStates": ["needs-input"]]
        return .object(object)
    }

    /// Registers a phone and returns its registration id.
    func register(_ body: JSONValue, session: String) async throws -> String {
        let reply = try await call("POST", "/v1/devices", json: body, session: session)
        guard reply.status == 200, let id = reply.json?["registrationId"]?.stringValue else {
            throw HarnessFailure("register answered \(reply.status) \(reply.text)")
        }
        return id
    }

    /// A send body for `ids`.
    static func send(_ ids: [String], notificationId: String? = "note-1", agentState: String? = "needs-input",
                     title: String = "Agent needs input", body: String = "Waiting on your answer", seq: Int64 = 7,
                     source: String = "agent-task-complete", worktreeId: String? = "wt-1") -> JSONValue {
        var note = JSONObject()
        if let notificationId { note["notificationId"] = .string(notificationId) }
        note["notificationSeq"] = .integer(seq)
        note["notificationEpoch"] = "5c9e9a1e-0000-4000-8000-000000000000"
        note["source"] = .string(source)
        note["agentState"] = agentState.map(JSONValue.string) ?? .null
        note["title"] = .string(title)
        note["body"] = .string(body)
        if let worktreeId { note["worktreeId"] = .string(worktreeId) }
        return .object(JSONObject([("v", 1), ("registrationIds", .array(ids.map(JSONValue.string))), ("notification", .object(note))]))
    }

    /// `POST /v1/send`; the `(registrationId, status)` results.
    func send(_ body: JSONValue, session: String) async throws -> [String] {
        let reply = try await call("POST", "/v1/send", json: body, session: session)
        guard reply.status == 200, let results = reply.json?["results"]?.arrayValue else {
            throw HarnessFailure("send answered \(reply.status) \(reply.text)")
        }
        return results.map { "\($0["registrationId"]?.stringValue ?? "?"):\($0["status"]?.stringValue ?? "?")" }
    }

    // MARK: - Time and the database

    /// Moves the manual clock, running due scheduler jobs, then waits for the deliveries and
    /// prunes they started. Jobs already due run first and their deliveries finish before the
    /// clock moves, so a jump cannot run a delivery's request deadline out under it.
    func advance(byMs ms: Int64) async {
        for step in ms > 0 ? [0, ms] : [0] {
            scheduler.advance(byMs: step)
            await gateway.waitForDeliveries()
            await gateway.waitForMaintenance()
        }
    }

    /// The rows of a query on the relay database (read-only connection), `columns` text columns each.
    func rows(_ sql: String, columns: Int32 = 1) throws -> [[String?]] {
        let connection = try SQLiteConnection(path: databasePath, access: .readOnly)
        return try connection.withStatement(sql) { statement in
            var rows: [[String?]] = []
            while try statement.step() { rows.append((0..<columns).map { statement.string(at: $0) }) }
            return rows
        }
    }

    /// The number a `SELECT count(*) …` returns.
    func count(_ sql: String) throws -> Int {
        Int(try rows(sql).first?.first.flatMap { $0 } ?? "") ?? -1
    }

    /// Stops everything and returns which `secrets` appear in any log line (expected none).
    func stopAndFindLeaks(_ secrets: [String]) async -> [String] {
        await stop()
        let lines = logs.lines
        return secrets.filter { secret in lines.contains { $0.contains(secret) } }
    }
}

/// A harness step that got an unexpected answer.
struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
