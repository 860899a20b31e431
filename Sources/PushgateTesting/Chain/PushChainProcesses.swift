import Foundation
import PushgateCore

/// How the fault suite and the soak start, restart and stop the three processes of a push
/// chain — `pushgate-dev fake-apns`, `pushgate-relay`, `pushgate-host` (relay mode) — from one
/// directory of executables, each a ``ServerProcess`` on loopback with its log file.
public struct PushChainProcesses: Sendable {
    /// The directory holding `pushgate-dev`, `pushgate-relay` and `pushgate-host`.
    public let binaries: String

    /// The relay's per-minute rate limits: a chain posts many sends a minute from one address
    /// and one host, so a test sets them out of its way.
    public static let rateLimits = ["REGISTER_LIMIT_PER_MINUTE", "SEND_LIMIT_PER_MINUTE", "SERVER_SEND_LIMIT_PER_MINUTE"]

    public init(binaries: String) {
        self.binaries = binaries
    }

    /// `pushgate-dev fake-apns` with `arguments` but `--port`.
    public func startFake(_ arguments: [String], port: UInt16, logFile: String) async throws -> ServerProcess {
        try await ServerProcess.start("fake APNs", executable: binaries + "/pushgate-dev", arguments: arguments + ["--port", "\(port)"],
                                      environment: [:], logFile: logFile)
    }

    /// `pushgate-relay`; `port` nil: any free one (`PUSHGATE_RELAY_PORT` otherwise).
    public func startRelay(_ environment: [String: String], port: UInt16? = nil, logFile: String) async throws -> ServerProcess {
        var environment = environment
        environment["PUSHGATE_RELAY_PORT"] = port.map { "\($0)" } ?? environment["PUSHGATE_RELAY_PORT"]
        return try await ServerProcess.start("relay", executable: binaries + "/pushgate-relay", environment: environment,
                                             logFile: logFile)
    }

    /// `pushgate-host run` on `port` (0: any free one).
    public func startHost(_ environment: [String: String], port: UInt16, logFile: String) async throws -> ServerProcess {
        var environment = environment
        environment["PUSHGATE_HOST_LISTEN"] = "127.0.0.1:\(port)"
        return try await ServerProcess.start("host", executable: binaries + "/pushgate-host", arguments: ["run"],
                                             environment: environment, logFile: logFile)
    }

    /// The environment of a host in relay mode (iOS pushes through the relay at `relayPort`,
    /// Android off) but its listening address.
    public static func hostEnvironment(home: String, accessToken: String, relayPort: UInt16) -> [String: String] {
        ["PUSHGATE_HOME": home, "PUSHGATE_HOST_ACCESS_TOKEN": accessToken, "PUSHGATE_IOS_PUSH": "relay",
         "PUSHGATE_ANDROID_PUSH": "off", "PUSHGATE_PUSH_RELAY_URL": "http://127.0.0.1:\(relayPort)"]
    }

    /// Kills `process` (SIGKILL) for a restart; throws unless SIGKILL is what ended it.
    public static func kill(_ process: ServerProcess) async throws {
        try expectExit(await process.stop(SIGKILL), 128 + SIGKILL, of: process)
    }

    /// Throws when any of `processes` has ended on its own, then stops them in order (SIGTERM)
    /// and expects each to exit 0.
    public static func stop(_ processes: [ServerProcess]) async throws {
        for process in processes { try process.checkRunning() }
        for process in processes { try expectExit(await process.stop(), 0, of: process) }
    }

    /// After a failure: kills whatever of `processes` still runs (the logs stay).
    public static func abandon(_ processes: [ServerProcess]) {
        for process in processes { process.child.signal(SIGKILL) }
    }

    private static func expectExit(_ status: Int32, _ expected: Int32, of process: ServerProcess) throws {
        guard status != expected else { return }
        throw ChildProcessError(command: process.name, reason: "exit status \(status), expected \(expected); "
                                + "the end of \(process.logFile):\n\(ServerProcess.logTail(process.logFile))")
    }
}
