import Foundation
import PushgateCore
import PushgateTesting

/// `pushgate-host` (relay mode, signing with its own identity) → `pushgate-relay` (SQLite in
/// the directory, or a PostgreSQL database) → `pushgate fake-apns` (appending every request to
/// its record file): the real binaries as child processes on loopback, their files and logs in
/// one temporary directory. Each of the three can be killed and started again on the same port;
/// the host's home can sit on a small disk (``HostStoreDisk``).
actor DeliveryChain {
    static let bundleId = "dev.pushgate.faults"
    static let keyId = "FAULTKEY01"
    static let teamId = "FAULTTEAM1"

    let directory: String
    let client: HostClient
    /// The host's deliberate restarts, which the hub rides out.
    let hostRestarts = HostRestarts()
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
        relayEnvironment["PUSHGATE_RELAY_DATABASE_URL"] = relayDatabaseURL
        // The scenarios post hundreds of sends a minute from one address and one host.
        for limit in ["REGISTER_LIMIT_PER_MINUTE", "SEND_LIMIT_PER_MINUTE", "SERVER_SEND_LIMIT_PER_MINUTE"] {
            relayEnvironment["PUSHGATE_RELAY_" + limit] = "100000"
        }
        let relay = try await startRelay(relayEnvironment, directory: directory)

        let home = directory + "/host"
        let hostDisk = smallHostDisk ? try HostStoreDisk.prepare(at: home) : nil
        let accessToken = Base64URL.encode(SecureRandom.bytes(32))
        let hostEnvironment = ["PUSHGATE_HOME": home, "PUSHGATE_HOST_ACCESS_TOKEN": accessToken, "PUSHGATE_IOS_PUSH": "relay",
                               "PUSHGATE_ANDROID_PUSH": "off", "PUSHGATE_PUSH_RELAY_URL": "http://127.0.0.1:\(relay.port)"]
        let host: ServerProcess
        do {
            host = try await startHost(hostEnvironment, port: 0, directory: directory)
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
    var hub: Hub { Hub(client: client, restarts: hostRestarts) }

    /// Sends `signal` to the fake APNs (SIGUSR1 drops its connections; SIGSTOP, SIGCONT).
    func signalFake(_ signal: Int32) { fake.child.signal(signal) }

    /// Kills the fake (SIGKILL); ``startFakeAgain()`` brings it back.
    func killFake() async throws {
        try await checkExit(fake.stop(SIGKILL), expected: 128 + SIGKILL, of: fake.name)
    }

    /// Starts the fake again on the same port with the same certificate (`--tls-dir`) and record file.
    func startFakeAgain() async throws {
        fake = try await Self.startFake(fakeArguments, port: fake.port, directory: directory)
    }

    /// Kills the relay (SIGKILL) and starts it again at once on the same port and database.
    func restartRelay() async throws {
        try await checkExit(relay.stop(SIGKILL), expected: 128 + SIGKILL, of: relay.name)
        var environment = relayEnvironment
        environment["PUSHGATE_RELAY_PORT"] = "\(relay.port)"
        relay = try await Self.startRelay(environment, directory: directory)
    }

    /// Kills the host (SIGKILL) and starts it again at once on the same port and home; the hub
    /// posts again what the killed host left unanswered (``HostRestarts``).
    func restartHost() async throws {
        await hostRestarts.begin()
        do {
            try await checkExit(host.stop(SIGKILL), expected: 128 + SIGKILL, of: host.name)
            host = try await Self.startHost(hostEnvironment, port: host.port, directory: directory)
        } catch {
            await hostRestarts.end()
            throw error
        }
        await hostRestarts.end()
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
        for process in [host, relay, fake] { try process.checkRunning() }
        for process in [host, relay, fake] { try await checkExit(process.stop(), expected: 0, of: process.name) }
        hostDisk?.release()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// After a failure: kills whatever still runs, unmounts the host's disk and keeps the
    /// directory (logs, record file).
    func abandon() {
        for process in [host, relay, fake] { process.child.signal(SIGKILL) }
        hostDisk?.release()
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

    private static func startHost(_ environment: [String: String], port: UInt16, directory: String) async throws -> ServerProcess {
        var environment = environment
        environment["PUSHGATE_HOST_LISTEN"] = "127.0.0.1:\(port)"
        return try await ServerProcess.start("host", executable: BuiltProducts.path("pushgate-host"), arguments: ["run"],
                                             environment: environment, logFile: directory + "/host.log")
    }

    private static func startRelay(_ environment: [String: String], directory: String) async throws -> ServerProcess {
        try await ServerProcess.start("relay", executable: BuiltProducts.path("pushgate-relay"), environment: environment,
                                      logFile: directory + "/relay.log")
    }
}
