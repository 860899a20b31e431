import Foundation
@testable import PushgateCore
import PushgateRelay
import PushgateTesting
import Testing

/// A relay in this process with `--dry-run`: every delivery is written to a log in a directory
/// of its own instead of reaching a provider.
struct DryRunRelay {
    let relay: RelayServer
    let scheduler: ManualScheduler
    let directory: URL
    var logPath: String { directory.appendingPathComponent("deliveries.jsonl").path }
    var port: UInt16 { relay.port }

    static func start() async throws -> DryRunRelay {
        let directory = try TemporaryDirectory.create("dry-run")
        let log = directory.appendingPathComponent("deliveries.jsonl").path
        let configuration = try RelayConfiguration(arguments: ["--dry-run", "--dry-run-log", log, "--port", "0", "--metrics-listen", "off",
                                                              "--database-path", directory.appendingPathComponent("r.sqlite").path],
                                                   environment: [:])
        let logger = Logger(component: "relay", minimumLevel: .error)
        // The signed routes check `ts` against this clock.
        let scheduler = ManualScheduler(clock: ManualClock(milliseconds: SystemClock().nowMilliseconds))
        let relay = try await RelayServer(configuration: configuration, channel: configuration.makeChannel(clock: SystemClock(), logger: logger),
                                          scheduler: scheduler, logger: logger)
        return DryRunRelay(relay: relay, scheduler: scheduler, directory: directory)
    }

    /// A dry-run relay with one host that bound an iOS and an Android token.
    static func withBothPlatformsBound() async throws
        -> (dryRun: DryRunRelay, chain: AndroidChain.Endpoint, host: OpenChamberHost, iosToken: String, androidToken: String) {
        let dryRun = try await start()
        let chain = AndroidChain.Endpoint(port: dryRun.port)
        let host = OpenChamberHost(key: P256PrivateKey())
        let iosToken = TestToken.make(), androidToken = AndroidChain.fcmToken()
        for (token, platform) in [(iosToken, "ios"), (androidToken, "android")] {
            try #require(try await chain.post("/v1/push/register-token", host.register(token, platform: platform)).status == 200)
        }
        return (dryRun, chain, host, iosToken, androidToken)
    }

    /// Stops the relay and returns the log it wrote; the directory goes.
    func stop() async throws -> String {
        await relay.shutdown(graceSeconds: 1)
        scheduler.discardPending()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try String(contentsOfFile: logPath, encoding: .utf8)
    }
}
