import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// `pushgate-dev bench apns`: pushes per second from one ``APNsClient`` over one HTTP/2
/// connection to a fake APNs that Scripts/bench runs as another process
/// (`pushgate-dev fake-apns --p8 … --cert-out FILE`), with a sliding window of sends outstanding.
enum BenchAPNsSuite {
    static let usage = "pushgate-dev bench apns --target PORT --ca FILE --p8 FILE --key-id K --team-id T "
        + "[--count N] [--window N] [--payload-bytes N]"

    static let tokenUsage = "pushgate-dev bench apns-token --p8 FILE --key-id K --team-id T [--payload-out FILE] [--payload-bytes N]"

    private static let bundleId = "dev.pushgate.bench"
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The outcome of a batch of pushes.
    private struct Run: Sendable {
        var latencies: BenchLatencies
        var failures = 0
        var firstFailure: String?
    }

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let port = try arguments.wholeNumber("target", in: 1...65_535)
        let caFile = try arguments.requiredOption("ca")
        let p8 = String(decoding: try ToolFile.read(arguments.requiredOption("p8")), as: UTF8.self)
        let keyId = try arguments.requiredOption("key-id")
        let teamId = try arguments.requiredOption("team-id")
        let count = try arguments.wholeNumber("count", in: 1...10_000_000, default: 100_000)
        let window = try arguments.wholeNumber("window", in: 1...10_000, default: 1_000)
        let payloadBytes = try arguments.wholeNumber("payload-bytes", in: 80...4_096, default: 300)
        try arguments.finish()

        let origin = HTTP2Origin(host: "127.0.0.1", port: UInt16(port))
        var configuration = APNsConfiguration(privateKey: try P256PrivateKey(pkcs8PEM: p8), keyId: keyId, teamId: teamId,
                                              productionOrigin: origin, sandboxOrigin: origin, extraCAFile: caFile)
        configuration.http2.maxConnectionsPerOrigin = 1
        configuration.http2.maxQueuedRequestsPerOrigin = max(window, configuration.http2.maxQueuedRequestsPerOrigin)
        let client = try APNsClient(configuration: configuration, logger: Logger(component: "bench", minimumLevel: .warning))
        let payload = try alertPayload(bytes: payloadBytes)

        // The warm-up opens the connection and makes the provider token; it is not timed.
        try check(AsyncBridge.wait { await push(client, indices: 0..<window, window: window, payload: payload) })
        let cpuStart = BenchProcess.cpuSeconds()
        let start = ContinuousClock.now
        let run = try AsyncBridge.wait { await push(client, indices: window..<(window + count), window: window, payload: payload) }
        let wall = start.duration(to: .now)
        let cpu = BenchProcess.cpuSeconds() - cpuStart
        try check(run)
        let connections = client.statistics(for: .production)
        try AsyncBridge.wait { await client.shutdown() }

        let wallSeconds = wall.inSeconds
        let percentiles = run.latencies.milliseconds(percentiles: [0.5, 0.99])
        report(BenchFigure(name: "apns.pushes_per_second", value: Double(count) / wallSeconds, unit: "pushes/s",
                           detail: "\(BenchFigure.grouped(count)) pushes of \(payload.count) B in \(BenchFigure.twoDecimals(wallSeconds)) s wall, "
                               + "window \(window), \(connections.connections) connection(s) open at the end"))
        report(BenchFigure(name: "apns.latency_p50", value: percentiles[0], unit: "ms"))
        report(BenchFigure(name: "apns.latency_p99", value: percentiles[1], unit: "ms"))
        report(BenchFigure(name: "apns.client_cpu_per_push", value: cpu / Double(count) * 1e6, unit: "µs",
                           detail: "\(BenchFigure.twoDecimals(cpu)) CPU-s for the timed pushes, all threads"))
        report(BenchFigure(name: "apns.client_peak_rss", value: Double(try BenchProcess.memoryKiB("VmHWM")) / 1024, unit: "MiB"))
    }

    /// `pushgate-dev bench apns-token`: prints a provider token of the `.p8` key (the one the client
    /// makes) and writes the client's alert payload, for `h2load` against the same fake.
    static func token(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let key = try P256PrivateKey(pkcs8PEM: String(decoding: try ToolFile.read(arguments.requiredOption("p8")), as: UTF8.self))
        let keyId = try arguments.requiredOption("key-id")
        let teamId = try arguments.requiredOption("team-id")
        let payloadOut = arguments.option("payload-out")
        let payloadBytes = try arguments.wholeNumber("payload-bytes", in: 80...4_096, default: 300)
        try arguments.finish()
        if let payloadOut { try Data(alertPayload(bytes: payloadBytes)).write(to: URL(fileURLWithPath: payloadOut)) }
        print(APNsProviderToken.make(key: key, keyId: keyId, teamId: teamId, issuedAt: SystemClock().nowMilliseconds / 1000))
    }

    /// Sends the pushes numbered `indices`, keeping `window` sends outstanding until the last:
    /// `window` senders, each sending its next push once the last one's outcome came, so the
    /// driver spends no task per push of its own.
    private static func push(_ client: APNsClient, indices: Range<Int>, window: Int, payload: [UInt8]) async -> Run {
        await withTaskGroup(of: Run.self) { group in
            for sender in 0..<min(window, indices.count) {
                group.addTask {
                    let numbers = stride(from: indices.lowerBound + sender, to: indices.upperBound, by: window)
                    var run = Run(latencies: BenchLatencies(capacity: indices.count / window + 1))
                    for number in numbers {
                        let notification = notification(number: number, payload: payload)
                        let start = ContinuousClock.now
                        let outcome = await client.send(notification, environment: .production)
                        run.latencies.record(start.duration(to: .now))
                        if outcome != .delivered {
                            run.failures += 1
                            run.firstFailure = run.firstFailure ?? "\(outcome)"
                        }
                    }
                    return run
                }
            }
            var total = Run(latencies: BenchLatencies(capacity: indices.count))
            for await run in group {
                total.latencies.append(contentsOf: run.latencies)
                total.failures += run.failures
                total.firstFailure = total.firstFailure ?? run.firstFailure
            }
            return total
        }
    }

    private static func check(_ run: Run) throws {
        if let failure = run.firstFailure {
            throw ToolFailure("\(run.failures) of \(run.latencies.count) pushes were not delivered; the first: \(failure)")
        }
    }

    /// An alert to the device token numbered `number` (64 hex digits).
    private static func notification(number: Int, payload: [UInt8]) -> APNsNotification {
        // Written digit by digit: the driver's own work counts in the process's CPU per push.
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 64)
        var rest = number, position = 63
        while rest > 0 {
            digits[position] = hexDigits[rest & 15]
            rest >>= 4
            position -= 1
        }
        let token = String(decoding: digits, as: UTF8.self)
        do {
            return try APNsNotification.alert(deviceToken: token, bundleId: bundleId, payload: payload)
        } catch {
            preconditionFailure("a 64-hex token and a checked payload make a valid alert: \(error)")
        }
    }

    /// The relay's alert payload with a body that makes it exactly `bytes` long.
    private static func alertPayload(bytes: Int) throws -> [UInt8] {
        let title = "Build finished on relay-01"
        guard let empty = APNsPayload.alert(title: title, body: "", badge: nil, threadId: nil, data: []), empty.count < bytes,
              let payload = APNsPayload.alert(title: title, body: String(repeating: "x", count: bytes - empty.count),
                                              badge: nil, threadId: nil, data: []), payload.count == bytes
        else { throw UsageError("--payload-bytes must leave room for the alert's fields") }
        return payload
    }
}
