import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateTesting
import Synchronization

/// The processes `pushgate-dev bench soak` drives: `pushgate-dev fake-apns` (counters only; its script,
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
    private let processes: PushChainProcesses
    private let relayEnvironment: [String: String]
    private let hostEnvironment: [String: String]

    private var scriptFile: String { directory + "/fake-apns-script.json" }

    /// Starts the three in `directory`; `binaries` holds `pushgate`, `pushgate-relay` and `pushgate-host`.
    init(directory: String, binaries: String) throws {
        self.directory = directory
        let processes = PushChainProcesses(binaries: binaries)
        self.processes = processes
        let providerKey = P256PrivateKey()
        try providerKey.pkcs8PEM.write(toFile: directory + "/apns.p8", atomically: true, encoding: .utf8)
        try "{}".write(toFile: directory + "/fake-apns-script.json", atomically: true, encoding: .utf8)
        let fakeArguments = ["fake-apns", "--p8", directory + "/apns.p8", "--key-id", Self.keyId, "--team-id", Self.teamId,
                             "--script", directory + "/fake-apns-script.json", "--cert-out", directory + "/fake-apns.pem"]
        fake = try AsyncBridge.wait { try await processes.startFake(fakeArguments, port: 0, logFile: directory + "/fake-apns.log") }

        var relayEnvironment = try FakeAPNs.relayEnvironment(
            origin: "https://127.0.0.1:\(fake.port)", apnsKey: providerKey, keyId: Self.keyId, teamId: Self.teamId,
            bundleId: Self.bundleId, caFile: directory + "/fake-apns.pem", databasePath: directory + "/relay.sqlite")
        // Limits out of the load's way: half the chain's capacity is about 150 000 requests a
        // minute. A replay key lives TIMESTAMP_SKEW_MS + 1 s:
        // 31 s here, so the replay set reaches its steady size within the first minute; with
        // the default 301 s it would grow through half of a 10-minute run.
        for limit in PushChainProcesses.rateLimits { relayEnvironment["PUSHGATE_RELAY_" + limit] = "250000" }
        for (limit, value) in [("MAX_REPLAY_KEYS", 10_000_000), ("MAX_IN_FLIGHT", 10_000), ("MAX_CONNECTIONS_PER_IP", 4_096),
                               ("TIMESTAMP_SKEW_MS", 30_000)] {
            relayEnvironment["PUSHGATE_RELAY_" + limit] = "\(value)"
        }
        let startingEnvironment = relayEnvironment
        let relay = try AsyncBridge.wait { try await processes.startRelay(startingEnvironment, logFile: directory + "/relay.log") }
        self.relayEnvironment = startingEnvironment
        self.relay = Mutex(relay)

        accessToken = Base64URL.encode(SecureRandom.bytes(32))
        let hostEnvironment = PushChainProcesses.hostEnvironment(home: directory + "/host", accessToken: accessToken,
                                                                 relayPort: relay.port)
        let host = try AsyncBridge.wait { try await processes.startHost(hostEnvironment, port: 0, logFile: directory + "/host.log") }
        hostPort = host.port
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
        let (killed, processes, environment) = (relay.withLock { $0 }, processes, relayEnvironment)
        let started = try AsyncBridge.wait {
            try await PushChainProcesses.kill(killed)
            return try await processes.startRelay(environment, port: killed.port, logFile: killed.logFile)
        }
        relay.withLock { $0 = started }
    }

    /// Kills the host (SIGKILL) and starts it again at once on its port and home, telling
    /// `restarts` so that the load posts again what the killed host left unanswered.
    func restartHost(_ restarts: HostRestartGate) throws {
        restarts.begin()
        defer { restarts.end() }
        let (killed, processes, environment) = (host.withLock { $0 }, processes, hostEnvironment)
        let started = try AsyncBridge.wait {
            try await PushChainProcesses.kill(killed)
            return try await processes.startHost(environment, port: killed.port, logFile: killed.logFile)
        }
        host.withLock { $0 = started }
    }

    /// Throws when any of the three has ended on its own, then stops them (SIGTERM: host, relay,
    /// fake) and expects each to exit 0.
    func stop() throws {
        let running = [host.withLock { $0 }, relay.withLock { $0 }, fake]
        try AsyncBridge.wait { try await PushChainProcesses.stop(running) }
    }

    /// After a failure: kills whatever still runs (the logs stay).
    func abandon() {
        PushChainProcesses.abandon([host.withLock { $0 }, relay.withLock { $0 }, fake])
    }
}
