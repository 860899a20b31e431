import Foundation
import PushgateCore
import PushgateHTTP
import PushgateStore

/// The `pushgate-host` commands: `run` (default), `--check-config`, `identity`, `identity rotate`,
/// `import-openchamber FILE [--environment production|sandbox]`, `--help`, `--version`.
public enum HostMain {
    /// Runs a command; returns the exit status (0 ok, 1 failure, 2 usage or settings).
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let logger = Logger(component: "host", minimumLevel: Logger.levelFromEnvironment(environment))
        do {
            switch arguments {
            case ["--help"], ["-h"], ["help"]:
                FileHandle.standardOutput.write(Data(HostHelp.text.utf8))
                return 0
            case ["--version"]:
                FileHandle.standardOutput.write(Data(version.utf8))
                return 0
            case ["--check-config"]: return HostConfigurationCheck.run(environment: environment)
            case [], ["run"]: return try await serve(environment: environment, logger: logger)
            case ["identity"]:
                print(try HostSettings.load(environment: environment).serverId)
                return 0
            case ["identity", "rotate"]: return try await rotate(environment: environment, logger: logger)
            case let command where command.count == 2 && command[0] == "import-openchamber":
                return try await importFile(command[1], tokenEnvironment: "production", environment: environment)
            case let command where command.count == 4 && command[0] == "import-openchamber" && command[2] == "--environment"
                && ["production", "sandbox"].contains(command[3]):
                return try await importFile(command[1], tokenEnvironment: command[3], environment: environment)
            default:
                fail(HostHelp.usage)
                return 2
            }
        } catch let error as HostSettingsError {
            fail(error.description)
            return 2
        } catch {
            fail("\(error)")
            return 1
        }
    }

    /// `--version`: the host's version and its libraries'.
    static var version: String {
        PushgateVersion.report(program: "pushgate-host", libraries: LinkedLibrary.core + LinkedLibrary.http + LinkedLibrary.store)
    }

    private static func serve(environment: [String: String], logger: Logger) async throws -> Int32 {
        let termination = TerminationSignals()
        let settings = try HostSettings.load(environment: environment)
        let logger = Logger(component: "host", minimumLevel: settings.logLevel)
        let scheduler = DispatchScheduler()
        let service = try HostService(settings: settings, scheduler: scheduler, logger: logger)
        try await service.start()
        let api = try HostAPI(service: service, host: settings.listenHost, port: settings.listenPort, logger: logger)
        let metrics = try settings.metricsListen.map { address in
            try MetricsListener(address: address, logger: logger) { await service.metrics() }
        }
        // As the relay does: the metrics line first, so whoever has read `listening` has both.
        if let metrics, let address = settings.metricsListen {
            FileHandle.standardOutput.write(Data("metrics \(address.host):\(metrics.port)\n".utf8))
        }
        // The listening line, so a supervisor or test can read the port at once.
        FileHandle.standardOutput.write(Data("listening \(settings.listenHost):\(api.port)\n".utf8))
        logger.info("host started", ["serverId": Redact.serverId(settings.serverId), "iosPush": settings.iosPushMode.rawValue])
        let status = ServiceStatus(readyWith: environment, scheduler: scheduler, loop: { service.eventLoop.execute($0) }, logger: logger)
        let signal = await termination.next()
        logger.info("stopping", ["signal": signal])
        status.stopping()
        await api.shutdown(grace: .seconds(5))
        metrics?.stop()
        await service.shutdown()
        logger.info("stopped")
        return 0
    }

    private static func rotate(environment: [String: String], logger: Logger) async throws -> Int32 {
        let home = try HomePath.prepare(environment: environment)
        let file = SettingsFile(path: (home as NSString).appendingPathComponent("settings.json"))
        let key = try HostSettings.rotateIdentity(in: file)
        let settings = try HostSettings.load(environment: environment)
        let service = try HostService(settings: settings, scheduler: DispatchScheduler(), logger: logger)
        let outcome = try await service.reregisterAll()
        await service.shutdown()
        print(key.publicKey.serverId)
        logger.info("identity rotated; tokens registered again",
                    ["registered": "\(outcome.registered)", "tokens": "\(outcome.total)"])
        return outcome.registered == outcome.total ? 0 : 1
    }

    private static func importFile(_ path: String, tokenEnvironment: String, environment: [String: String]) async throws -> Int32 {
        guard let data = FileManager.default.contents(atPath: HomePath.expand(path, environment: environment)) else {
            fail("cannot read \(path)")
            return 1
        }
        let settings = try HostSettings.load(environment: environment)
        let store = try HostStore(path: settings.databasePath, clock: SystemClock())
        let summary = try await OpenChamberImport.run(json: Array(data), into: store, defaultEnvironment: tokenEnvironment)
        print("imported \(summary.alertTokens) alert tokens (\(summary.androidTokens) Android), "
            + "\(summary.liveActivityTokens) Live Activity tokens, \(summary.eventVersions) event versions")
        return 0
    }

    private static func fail(_ message: String) {
        FileHandle.standardError.write(Data("pushgate-host: \(message)\n".utf8))
    }
}
