import Foundation
import PushgateCore
import PushgateTesting

/// `pushgate-host` (relay mode, signing with its own identity) → `pushgate-relay` (SQLite in
/// the directory) → `pushgate fake-apns` (appending every request to its record file): the real
/// binaries as child processes on loopback, their files and logs in one temporary directory.
/// The fake and the relay can be killed and started again on the same port.
actor DeliveryChain {
    static let bundleId = "dev.pushgate.faults"
    static let keyId = "FAULTKEY01"
    static let teamId = "FAULTTEAM1"

    let directory: String
    let host: ServerProcess
    let client: HostClient
    private(set) var fake: ServerProcess
    private(set) var relay: ServerProcess
    /// The fake's arguments but `--port`.
    private let fakeArguments: [String]
    private let relayEnvironment: [String: String]

    var recordFile: String { Self.recordFile(in: directory) }

    /// Starts the three; `fakeFlags` are the fake's fault flags, `script` its `--script` file.
    static func start(fakeFlags: [String] = [], script: JSONValue? = nil) async throws -> DeliveryChain {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let providerKey = P256PrivateKey()
        try providerKey.pkcs8PEM.write(toFile: directory + "/apns.p8", atomically: true, encoding: .utf8)
        var fakeArguments = ["fake-apns", "--p8", directory + "/apns.p8", "--key-id", keyId, "--team-id", teamId,
                             "--record", recordFile(in: directory), "--cert-out", directory + "/fake-apns.pem",
                             "--tls-dir", directory + "/fake-apns-tls"] + fakeFlags
        if let script {
            try script.serialized().write(toFile: directory + "/script.json", atomically: true, encoding: .utf8)
            fakeArguments += ["--script", directory + "/script.json"]
        }
        let fake = try await startFake(fakeArguments, port: 0, directory: directory)

        var relayEnvironment = try FakeAPNs.relayEnvironment(
            origin: "https://127.0.0.1:\(fake.port)", apnsKey: providerKey, keyId: keyId, teamId: teamId, bundleId: bundleId,
            caFile: directory + "/fake-apns.pem", databasePath: directory + "/relay.sqlite")
        // The scenarios post hundreds of sends a minute from one address and one host.
        for limit in ["REGISTER_LIMIT_PER_MINUTE", "SEND_LIMIT_PER_MINUTE", "SERVER_SEND_LIMIT_PER_MINUTE"] {
            relayEnvironment["PUSHGATE_RELAY_" + limit] = "100000"
        }
        let relay = try await startRelay(relayEnvironment, directory: directory)

        let accessToken = Base64URL.encode(SecureRandom.bytes(32))
        let host = try await ServerProcess.start(
            "host", executable: BuiltProducts.path("pushgate-host"), arguments: ["run"],
            environment: ["PUSHGATE_HOME": directory + "/host", "PUSHGATE_HOST_LISTEN": "127.0.0.1:0",
                          "PUSHGATE_HOST_ACCESS_TOKEN": accessToken, "PUSHGATE_IOS_PUSH": "relay",
                          "PUSHGATE_ANDROID_PUSH": "off", "PUSHGATE_PUSH_RELAY_URL": "http://127.0.0.1:\(relay.port)"],
            logFile: directory + "/host.log")
        return DeliveryChain(directory: directory, host: host, client: HostClient(port: host.port, accessToken: accessToken),
                             fake: fake, relay: relay, fakeArguments: fakeArguments, relayEnvironment: relayEnvironment)
    }

    private init(directory: String, host: ServerProcess, client: HostClient, fake: ServerProcess, relay: ServerProcess,
                 fakeArguments: [String], relayEnvironment: [String: String]) {
        self.directory = directory
        self.host = host
        self.client = client
        self.fake = fake
        self.relay = relay
        self.fakeArguments = fakeArguments
        self.relayEnvironment = relayEnvironment
    }

    /// Sends `signal` to the fake APNs (SIGUSR1 drops its connections; SIGSTOP, SIGCONT).
    func signalFake(_ signal: Int32) { fake.child.signal(signal) }

    /// Kills the fake (SIGKILL), keeps it down for `seconds`, then starts it again on the same
    /// port with the same certificate (`--tls-dir`) and record file.
    func takeFakeDown(forSeconds seconds: Double) async throws {
        try await checkExit(fake.stop(SIGKILL), expected: 128 + SIGKILL, of: fake.name)
        try await Task.sleep(for: .seconds(seconds))
        fake = try await Self.startFake(fakeArguments, port: fake.port, directory: directory)
    }

    /// Kills the relay (SIGKILL) and starts it again at once on the same port and database.
    func restartRelay() async throws {
        try await checkExit(relay.stop(SIGKILL), expected: 128 + SIGKILL, of: relay.name)
        var environment = relayEnvironment
        environment["PUSHGATE_RELAY_PORT"] = "\(relay.port)"
        relay = try await Self.startRelay(environment, directory: directory)
    }

    /// Throws when any of the three has ended on its own, then stops them (SIGTERM: host, relay,
    /// fake) and expects each to exit 0. Removes the directory.
    func stop() async throws {
        for process in [host, relay, fake] { try process.checkRunning() }
        for process in [host, relay, fake] { try await checkExit(process.stop(), expected: 0, of: process.name) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// After a failure: kills whatever still runs and keeps the directory (logs, record file).
    func abandon() {
        for process in [host, relay, fake] { process.child.signal(SIGKILL) }
    }

    private func checkExit(_ status: Int32, expected: Int32, of name: String) throws {
        guard status != expected else { return }
        throw ChildProcessError(command: name, reason: "exit status \(status), expected \(expected); logs in \(directory)")
    }

    private static func recordFile(in directory: String) -> String { directory + "/apns-record.jsonl" }

    private static func startFake(_ arguments: [String], port: UInt16, directory: String) async throws -> ServerProcess {
        try await ServerProcess.start("fake APNs", executable: BuiltProducts.path("pushgate"),
                                      arguments: arguments + ["--port", "\(port)"], environment: [:],
                                      logFile: directory + "/fake-apns.log")
    }

    private static func startRelay(_ environment: [String: String], directory: String) async throws -> ServerProcess {
        try await ServerProcess.start("relay", executable: BuiltProducts.path("pushgate-relay"), environment: environment,
                                      logFile: directory + "/relay.log")
    }
}
