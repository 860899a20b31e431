import Foundation
import PushgateCore
import PushgateTesting

/// `pushgate-host` (relay mode, signing with its own identity) → `pushgate-relay` (SQLite in
/// the directory, or a PostgreSQL database) → `pushgate-dev fake-apns` (appending every request to
/// its record file): the real binaries as child processes on loopback, their files and logs in
/// one temporary directory. Each of the three can be killed and started again on the same port;
/// the host's home can sit on a small disk (``HostStoreDisk``).
actor DeliveryChain {
    static let bundleId = "dev.pushgate.faults"
    static let keyId = "FAULTKEY01"
    static let teamId = "FAULTTEAM1"
    /// The debug build's executables.
    static let processes = PushChainProcesses(binaries: BuiltProducts.directory)

    let directory: String
    let client: HostClient
    /// The host's deliberate restarts, which the hub rides out.
    let hostRestarts = HostRestartGate()
    /// The posts the hub has sent.
    let postsSent = PostsSent()
    private(set) var host: ServerProcess
    private(set) var fake: ServerProcess
    private(set) var relay: ServerProcess
    /// The small disk under the host's home, when asked for.
    let hostDisk: HostStoreDisk?
    /// The fake's arguments but `--port`.
    private let fakeArguments: [String]
    private let relayEnvironment: [String: String]
    /// The host's environment but `PUSHGATE_HOST_LISTEN`.
    private let hostEnvironment: [String: String]

    var recordFile: String { Self.recordFile(in: directory) }

    /// Starts the three; `fakeFlags` are the fake's fault flags, `script` its `--script` file;
    /// `relayDatabaseURL` puts the relay's store on PostgreSQL; `smallHostDisk` puts the host's
    /// home on a ``HostStoreDisk``.
    static func start(fakeFlags: [String] = [], script: JSONValue? = nil, relayDatabaseURL: String? = nil,
                      smallHostDisk: Bool = false) async throws -> DeliveryChain {
        let directory = try TemporaryDirectory.create("faults").path
        let providerKey = P256PrivateKey()
        try providerKey.pkcs8PEM.write(toFile: directory + "/apns.p8", atomically: true, encoding: .utf8)
        var fakeArguments = ["fake-apns", "--p8", directory + "/apns.p8", "--key-id", keyId, "--team-id", teamId,
                             "--record", recordFile(in: directory), "--cert-out", directory + "/fake-apns.pem",
                             "--tls-dir", directory + "/fake-apns-tls"] + fakeFlags
        if let script {
            try script.serialized().write(toFile: directory + "/script.json", atomically: true, encoding: .utf8)
            fakeArguments += ["--script", directory + "/script.json"]
        }
        let fake = try await processes.startFake(fakeArguments, port: 0, logFile: directory + "/fake-apns.log")

        var relayEnvironment = try FakeAPNs.relayEnvironment(
            origin: "https://127.0.0.1:\(fake.port)", apnsKey: providerKey, keyId: keyId, teamId: teamId, bundleId: bundleId,
            caFile: directory + "/fake-apns.pem", databasePath: directory + "/relay.sqlite")
        relayEnvironment["PUSHGATE_RELAY_DATABASE_URL"] = relayDatabaseURL
        for limit in PushChainProcesses.rateLimits { relayEnvironment["PUSHGATE_RELAY_" + limit] = "100000" }
        let relay = try await processes.startRelay(relayEnvironment, logFile: directory + "/relay.log")

        let home = directory + "/host"
        let hostDisk = smallHostDisk ? try HostStoreDisk.prepare(at: home) : nil
        let accessToken = Base64URL.encode(SecureRandom.bytes(32))
        let hostEnvironment = PushChainProcesses.hostEnvironment(home: home, accessToken: accessToken, relayPort: relay.port)
        let host: ServerProcess
        do {
            let start = { try await processes.startHost(hostEnvironment, port: 0, logFile: directory + "/host.log") }
            if let hostDisk { host = try await hostDisk.spawningHost(start) } else { host = try await start() }
        } catch {
            hostDisk?.release()
            throw error
        }
        return DeliveryChain(directory: directory, client: HostClient(port: host.port, accessToken: accessToken), host: host,
                             fake: fake, relay: relay, hostDisk: hostDisk, fakeArguments: fakeArguments,
                             relayEnvironment: relayEnvironment, hostEnvironment: hostEnvironment)
    }

    private init(directory: String, client: HostClient, host: ServerProcess, fake: ServerProcess, relay: ServerProcess,
                 hostDisk: HostStoreDisk?, fakeArguments: [String], relayEnvironment: [String: String],
                 hostEnvironment: [String: String]) {
        self.directory = directory
        self.client = client
        self.host = host
        self.fake = fake
        self.relay = relay
        self.hostDisk = hostDisk
        self.fakeArguments = fakeArguments
        self.relayEnvironment = relayEnvironment
        self.hostEnvironment = hostEnvironment
    }

    /// The hub that posts to this chain's host.
    var hub: Hub { Hub(client: client, restarts: hostRestarts, sent: postsSent) }

    /// Sends `signal` to the fake APNs (SIGUSR1 drops its connections; SIGSTOP, SIGCONT).
    func signalFake(_ signal: Int32) { fake.child.signal(signal) }

    /// Kills the fake (SIGKILL); ``startFakeAgain()`` brings it back.
    func killFake() async throws {
        try await PushChainProcesses.kill(fake)
    }

    /// Starts the fake again on the same port with the same certificate (`--tls-dir`) and record file.
    func startFakeAgain() async throws {
        fake = try await Self.processes.startFake(fakeArguments, port: fake.port, logFile: directory + "/fake-apns.log")
    }

    /// Kills the relay (SIGKILL) and starts it again at once on the same port and database.
    func restartRelay() async throws {
        try await PushChainProcesses.kill(relay)
        relay = try await Self.processes.startRelay(relayEnvironment, port: relay.port, logFile: relay.logFile)
    }

    /// Stops the host (SIGSTOP): it answers nothing until ``restartHost()`` kills it.
    func freezeHost() { host.child.signal(SIGSTOP) }

    /// Kills the host (SIGKILL) and starts it again at once on the same port and home; the hub
    /// posts again what the killed host left unanswered (``HostRestartGate``).
    func restartHost() async throws {
        hostRestarts.begin()
        defer { hostRestarts.end() }
        try await PushChainProcesses.kill(host)
        host = try await Self.processes.startHost(hostEnvironment, port: host.port, logFile: host.logFile)
    }

    /// Fills the host's small disk, so that nothing more fits in `host.sqlite` (on a thread of
    /// its own: writing the disk full, or running `prlimit`, blocks).
    func fillHostDisk() async throws {
        guard let hostDisk else { return }
        let pid = host.child.pid
        try await onOwnThread { try hostDisk.fill(host: pid) }
    }

    /// Gives the host's small disk its room back.
    func freeHostDisk() async throws {
        guard let hostDisk else { return }
        let pid = host.child.pid
        try await onOwnThread { try hostDisk.free(host: pid) }
    }

    /// Throws when any of the three has ended on its own, then stops them (SIGTERM: host, relay,
    /// fake) and expects each to exit 0. Unmounts the host's disk and removes the directory.
    func stop() async throws {
        try await PushChainProcesses.stop([host, relay, fake])
        hostDisk?.release()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// After a failure: kills whatever still runs, unmounts the host's disk and keeps the
    /// directory (logs, record file).
    func abandon() {
        PushChainProcesses.abandon([host, relay, fake])
        hostDisk?.release()
    }

    private static func recordFile(in directory: String) -> String { directory + "/apns-record.jsonl" }
}
