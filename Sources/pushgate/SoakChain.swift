import Foundation
import PushgateCore
import PushgateTesting
import Synchronization

/// The processes `pushgate bench soak` drives: `pushgate fake-apns` (counters only; its script,
/// empty at first, is read again on SIGHUP), `pushgate-relay` (SQLite in the work directory,
/// limits out of the load's way) and `pushgate-host` (relay mode), the binaries beside this one,
/// their logs in the work directory. The relay and the host can be killed and started again on
/// their ports and files.
final class SoakChain: Sendable {
    static let bundleId = "dev.pushgate.soak"
    static let keyId = "SOAKKEY001"
    static let teamId = "SOAKTEAM01"

    let directory: String
    let accessToken: String
    let hostPort: UInt16
    let fake: ServerProcess
    private let relay: Mutex<ServerProcess>
    private let host: Mutex<ServerProcess>
    private let binaries: String
    private let relayEnvironment: [String: String]
    private let hostEnvironment: [String: String]

    private var scriptFile: String { directory + "/fake-apns-script.json" }

    /// Starts the three in `directory`; `binaries` holds `pushgate`, `pushgate-relay` and `pushgate-host`.
    init(directory: String, binaries: String) throws {
        self.directory = directory
        self.binaries = binaries
        let providerKey = P256PrivateKey()
        try providerKey.pkcs8PEM.write(toFile: directory + "/apns.p8", atomically: true, encoding: .utf8)
        try "{}".write(toFile: directory + "/fake-apns-script.json", atomically: true, encoding: .utf8)
        fake = try Self.start("fake APNs", binaries + "/pushgate", arguments: [
            "fake-apns", "--p8", directory + "/apns.p8", "--key-id", Self.keyId, "--team-id", Self.teamId,
            "--script", directory + "/fake-apns-script.json", "--cert-out", directory + "/fake-apns.pem",
        ], environment: [:], log: directory + "/fake-apns.log")

        var relayEnvironment = try FakeAPNs.relayEnvironment(
            origin: "https://127.0.0.1:\(fake.port)", apnsKey: providerKey, keyId: Self.keyId, teamId: Self.teamId,
            bundleId: Self.bundleId, caFile: directory + "/fake-apns.pem", databasePath: directory + "/relay.sqlite")
        // Limits out of the load's way, as Scripts/bench sets them. A replay key lives
        // TIMESTAMP_SKEW_MS + 1 s: 31 s here, so the replay set reaches its steady size within
        // the first minute; with the default 301 s it would grow through half of a 10-minute run
        // and read as a leak in the relay's memory.
        for (limit, value) in [("REGISTER_LIMIT_PER_MINUTE", 1_000_000), ("SEND_LIMIT_PER_MINUTE", 1_000_000),
                               ("SERVER_SEND_LIMIT_PER_MINUTE", 1_000_000), ("MAX_REPLAY_KEYS", 10_000_000),
                               ("MAX_IN_FLIGHT", 10_000), ("MAX_CONNECTIONS_PER_IP", 4_096), ("TIMESTAMP_SKEW_MS", 30_000)] {
            relayEnvironment["PUSHGATE_RELAY_" + limit] = "\(value)"
        }
        let relay = try Self.start("relay", binaries + "/pushgate-relay", environment: relayEnvironment, log: directory + "/relay.log")
        relayEnvironment["PUSHGATE_RELAY_PORT"] = "\(relay.port)"
        self.relayEnvironment = relayEnvironment
        self.relay = Mutex(relay)

        accessToken = Base64URL.encode(SecureRandom.bytes(32))
        var hostEnvironment = ["PUSHGATE_HOME": directory + "/host", "PUSHGATE_HOST_LISTEN": "127.0.0.1:0",
                               "PUSHGATE_HOST_ACCESS_TOKEN": accessToken, "PUSHGATE_IOS_PUSH": "relay",
                               "PUSHGATE_ANDROID_PUSH": "off", "PUSHGATE_PUSH_RELAY_URL": "http://127.0.0.1:\(relay.port)"]
        let host = try Self.start("host", binaries + "/pushgate-host", arguments: ["run"], environment: hostEnvironment,
                                  log: directory + "/host.log")
        hostPort = host.port
        hostEnvironment["PUSHGATE_HOST_LISTEN"] = "127.0.0.1:\(host.port)"
        self.hostEnvironment = hostEnvironment
        self.host = Mutex(host)
    }

    var relayPid: pid_t { relay.withLock { $0.child.pid } }
    var hostPid: pid_t { host.withLock { $0.child.pid } }

    /// The fake answers each of `tokens` 503 three times (the relay's try and its two retries,
    /// so the host's push fails and goes to its outbox), then 200 again.
    func serviceUnavailableBurst(for tokens: [String]) throws {
        let burst: JSONValue = [["status": 503], ["status": 503], ["status": 503], ["status": 200]]
        try JSONValue.object(JSONObject(tokens.map { ($0, burst) })).serialized()
            .write(toFile: scriptFile, atomically: true, encoding: .utf8)
        fake.child.signal(SIGHUP)
    }

    /// Kills the relay (SIGKILL) and starts it again at once on its port and database.
    func restartRelay() throws {
        let killed = relay.withLock { $0 }
        try Self.expectExit(AsyncBridge.wait { try await killed.stop(SIGKILL) }, 128 + SIGKILL, of: killed)
        let started = try Self.start("relay", binaries + "/pushgate-relay", environment: relayEnvironment, log: killed.logFile)
        relay.withLock { $0 = started }
    }

    /// Kills the host (SIGKILL) and starts it again at once on its port and home, telling
    /// `restarts` so that the load posts again what the killed host left unanswered.
    func restartHost(_ restarts: SoakHostRestarts) throws {
        restarts.begin()
        defer { restarts.end() }
        let killed = host.withLock { $0 }
        try Self.expectExit(AsyncBridge.wait { try await killed.stop(SIGKILL) }, 128 + SIGKILL, of: killed)
        let started = try Self.start("host", binaries + "/pushgate-host", arguments: ["run"], environment: hostEnvironment,
                                     log: killed.logFile)
        host.withLock { $0 = started }
    }

    /// Throws when any of the three has ended on its own, then stops them (SIGTERM: host, relay,
    /// fake) and expects each to exit 0.
    func stop() throws {
        let processes = [host.withLock { $0 }, relay.withLock { $0 }, fake]
        for process in processes { try process.checkRunning() }
        for process in processes { try Self.expectExit(AsyncBridge.wait { try await process.stop() }, 0, of: process) }
    }

    /// After a failure: kills whatever still runs (the logs stay).
    func abandon() {
        for process in [host.withLock { $0 }, relay.withLock { $0 }, fake] { process.child.signal(SIGKILL) }
    }

    private static func start(_ name: String, _ executable: String, arguments: [String] = [], environment: [String: String],
                              log: String) throws -> ServerProcess {
        try AsyncBridge.wait {
            try await ServerProcess.start(name, executable: executable, arguments: arguments, environment: environment, logFile: log)
        }
    }

    private static func expectExit(_ status: Int32, _ expected: Int32, of process: ServerProcess) throws {
        guard status != expected else { return }
        throw ToolFailure("\(process.name) exited with status \(status), expected \(expected); see \(process.logFile)")
    }
}
