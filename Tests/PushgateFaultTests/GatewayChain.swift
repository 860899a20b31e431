import Foundation
import PushgateCore
import PushgateTesting

/// `pushgate gateway` (the Orca-compatible host tool) → `pushgate-relay` with the gateway on
/// (SQLite in the directory) → `pushgate-dev fake-apns` (appending every request to its record
/// file): the real binaries as child processes on loopback, their files and logs in one
/// temporary directory. The relay can be killed and started again on the same port and database.
actor GatewayChain {
    static let bundleId = "dev.pushgate.gateway-faults"
    static let origin = "https://gateway.faults.test"
    static let keyId = "GWFAULTK01"
    static let teamId = "GWFAULTT01"
    /// The coalescing window: short, so that windows open and close all through a burst.
    static let coalesceMs = 2_000

    let directory: String
    private let fake: ServerProcess
    private var relay: ServerProcess
    private let relayEnvironment: [String: String]

    var recordFile: String { directory + "/apns-record.jsonl" }

    static func start() async throws -> GatewayChain {
        let directory = try TemporaryDirectory.create("gateway-faults").path
        let providerKey = P256PrivateKey()
        try providerKey.pkcs8PEM.write(toFile: directory + "/apns.p8", atomically: true, encoding: .utf8)
        let fake = try await ServerProcess.start(
            "fake APNs", executable: BuiltProducts.path("pushgate-dev"),
            arguments: ["fake-apns", "--p8", directory + "/apns.p8", "--key-id", keyId, "--team-id", teamId,
                        "--record", directory + "/apns-record.jsonl", "--cert-out", directory + "/fake-apns.pem", "--port", "0"],
            environment: [:], logFile: directory + "/fake-apns.log")
        var environment = try FakeAPNs.relayEnvironment(
            origin: "https://127.0.0.1:\(fake.port)", apnsKey: providerKey, keyId: keyId, teamId: teamId, bundleId: bundleId,
            caFile: directory + "/fake-apns.pem", databasePath: directory + "/relay.sqlite")
        environment["PUSHGATE_GATEWAY_PUBLIC_URL"] = origin
        environment["PUSHGATE_GATEWAY_COALESCE_MS"] = "\(coalesceMs)"
        let relay = try await startRelay(environment, directory: directory)
        environment["PUSHGATE_RELAY_PORT"] = "\(relay.port)"
        return GatewayChain(directory: directory, fake: fake, relay: relay, relayEnvironment: environment)
    }

    private init(directory: String, fake: ServerProcess, relay: ServerProcess, relayEnvironment: [String: String]) {
        self.directory = directory
        self.fake = fake
        self.relay = relay
        self.relayEnvironment = relayEnvironment
    }

    /// A new host key file (`pushgate gateway key`).
    func newHost(_ name: String) async throws -> String {
        let file = directory + "/\(name).key"
        let outcome = try await Self.tool(["gateway", "key", "--out", file])
        guard outcome.status == 0 else { throw UnexpectedAnswer(description: "gateway key: \(outcome.stderr)") }
        return file
    }

    /// `pushgate gateway <command>` against the relay as the host whose key file is `host`, its
    /// session saved beside it.
    func gateway(_ command: String, host: String, _ arguments: [String] = []) async throws -> ChildProcess.Outcome {
        try await Self.tool(["gateway", command, "--gateway", "http://127.0.0.1:\(relay.port)", "--origin", Self.origin,
                             "--key", host, "--session", host + ".session"] + arguments)
    }

    /// Kills the relay (SIGKILL), with whatever windows it holds open, and starts it again at
    /// once on the same port and database.
    func restartRelay() async throws {
        let status = try await relay.stop(SIGKILL)
        guard status == 128 + SIGKILL else {
            throw ChildProcessError(command: relay.name, reason: "exit status \(status) after SIGKILL; logs in \(directory)")
        }
        relay = try await Self.startRelay(relayEnvironment, directory: directory)
    }

    /// Throws when either process has ended on its own, then stops both (SIGTERM) and expects
    /// each to exit 0. Removes the directory.
    func stop() async throws {
        for process in [relay, fake] { try process.checkRunning() }
        for process in [relay, fake] {
            let status = try await process.stop()
            guard status == 0 else {
                throw ChildProcessError(command: process.name, reason: "exit status \(status), expected 0; logs in \(directory)")
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the relays wrote to standard error so far (both runs).
    var relayLog: String { (try? String(contentsOfFile: directory + "/relay.log", encoding: .utf8)) ?? "" }

    /// After a failure: kills whatever still runs and keeps the directory (logs, record file).
    func abandon() {
        for process in [relay, fake] { process.child.signal(SIGKILL) }
    }

    /// Runs `pushgate` with `arguments` to its end, at most 30 s.
    private static func tool(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        let child = try ChildProcess(executable: BuiltProducts.path("pushgate"), arguments: arguments)
        do {
            return try await onOwnThread(within: 30, "pushgate \(arguments.prefix(2).joined(separator: " "))") { child.finish() }
        } catch {
            child.signal(SIGKILL)
            throw error
        }
    }

    private static func startRelay(_ environment: [String: String], directory: String) async throws -> ServerProcess {
        try await ServerProcess.start("gateway relay", executable: BuiltProducts.path("pushgate-relay"), environment: environment,
                                      logFile: directory + "/relay.log")
    }
}
