import Foundation
import PushgateCore
import PushgateHTTP
import PushgateStore

/// The `pushgate-relay` process: configuration, start, and shutdown on SIGTERM/SIGINT.
public enum RelayMain {
    /// Runs the relay until SIGTERM or SIGINT; returns the exit status (0 after a clean stop,
    /// 2 for invalid configuration, 1 when start-up fails).
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        if arguments.first == "bindings" {
            return await BindingsCommand.run(arguments: Array(arguments.dropFirst()), environment: environment)
        }
        if arguments.first == "backup" {
            return BackupCommand.run(arguments: Array(arguments.dropFirst()), environment: environment)
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            FileHandle.standardOutput.write(Data(RelayHelp.text.utf8))
            return 0
        }
        if arguments.contains("--version") {
            FileHandle.standardOutput.write(Data(version.utf8))
            return 0
        }
        if arguments.contains("--check-config") {
            return RelayConfigurationCheck.run(arguments: arguments.filter { $0 != "--check-config" }, environment: environment)
        }
        let configuration: RelayConfiguration
        do {
            configuration = try RelayConfiguration(arguments: arguments, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("pushgate-relay: \(error.description)\n".utf8))
            return 2
        }
        let logger = Logger(component: "relay", minimumLevel: configuration.logLevel)
        for warning in configuration.warnings { logger.warning(warning) }
        raiseFileLimit()
        let termination = TerminationSignals()
        let scheduler = DispatchScheduler()
        let server: RelayServer
        do {
            let channel = try configuration.makeChannel(clock: scheduler.clock, logger: logger)
            server = try await RelayServer(configuration: configuration, channel: channel, scheduler: scheduler, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("pushgate-relay: \(error.description)\n".utf8))
            return 2
        } catch {
            logger.error("relay could not start", ["error": "\(error)"])
            return 1
        }
        // Stdout holds the ports, written unbuffered so a supervisor or test can read them at once;
        // the metrics line comes first, so whoever has read `listening` has both.
        if let address = configuration.metricsListen, let port = server.metricsPort {
            FileHandle.standardOutput.write(Data("metrics \(address.host):\(port)\n".utf8))
        }
        FileHandle.standardOutput.write(Data("listening \(configuration.host):\(server.port)\n".utf8))
        let status = ServiceStatus(readyWith: environment, scheduler: scheduler, loop: { server.executeOnLoop($0) }, logger: logger)
        let signal = await termination.next()
        logger.info("stopping", ["signal": signal])
        status.stopping()
        await server.shutdown(graceSeconds: 5)
        logger.info("stopped")
        return 0
    }

    /// `--version`: the relay's version and its libraries'.
    static var version: String {
        PushgateVersion.report(program: "pushgate-relay", libraries: LinkedLibrary.core + LinkedLibrary.http + LinkedLibrary.store)
    }

    /// 1 000 open connections need more descriptors than a default soft limit of 1 024 leaves.
    static func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
