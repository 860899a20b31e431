import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateTesting
import Synchronization

/// `pushgate-dev bench soak`: the relay and the host (the binaries beside this one) with the fake
/// APNs, driven for `--minutes` at half the capacity measured at the start (``SoakLoad``,
/// ``SoakMix``) under the same faults every minute (``SoakFaultSchedule``), sampled every 10 s
/// (``SoakSample``) and judged by ``SoakVerdict``. Prints each sample on standard error as it
/// comes and, at the end, the run's facts, the samples and the verdict in Markdown on standard
/// output; fails when a series grew, a request failed, a fault failed, a process ended on its
/// own or the host's outbox did not empty within a minute after the load.
enum BenchSoakSuite {
    static let usage = "pushgate-dev bench soak --minutes M --work DIR [--devices N] [--threads T]"

    static let sampleSeconds = 10
    /// The closed-loop run that measures the capacity.
    static let capacitySeconds = 10
    /// How long the outbox may take to empty after the load.
    static let drainSeconds = 60

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let minutes = try arguments.wholeNumber("minutes", in: 1...1_440)
        guard minutes >= 3 else {
            throw UsageError("--minutes must be 3 or more: the verdict compares minute 2 with the last, "
                             + "and with 2 minutes that is a minute with itself")
        }
        let work = try arguments.requiredOption("work")
        let devices = try arguments.wholeNumber("devices", in: 1...100, default: 4)
        let threads = try arguments.wholeNumber("threads", in: 1...256, default: 16)
        try arguments.finish()
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        let chain = try SoakChain(directory: work, binaries: binaries)
        do {
            try soak(chain, minutes: minutes, devices: devices, threads: threads)
            try chain.stop()
        } catch {
            chain.abandon()
            throw error
        }
    }

    private static func soak(_ chain: SoakChain, minutes: Int, devices: Int, threads: Int) throws {
        let alertTokens = try register(devices: devices, on: chain)
        let restarts = HostRestartGate()
        let load = SoakLoad(port: chain.hostPort, accessToken: chain.accessToken, restarts: restarts)
        let measured = try load.run(threads: threads, rate: nil, until: .now + .seconds(capacitySeconds))
        _ = load.takeWindow()
        let capacity = Double(measured) / Double(capacitySeconds)
        let rate = capacity / 2
        progress("capacity \(Int(capacity)) requests/s (closed loop, \(threads) connections, \(capacitySeconds) s); "
                 + "driving \(Int(rate)) requests/s for \(minutes) min")

        let start = ContinuousClock.now
        let end = start + .seconds(minutes * 60)
        let failure = Mutex<String?>(nil)
        let failed = DispatchSemaphore(value: 0)
        let faultsDone = Mutex<[String]>([])
        let stopFaults = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        func spawn(_ name: String, _ work: @escaping @Sendable () throws -> Void) {
            finished.enter()
            Thread {
                defer { finished.leave() }
                do { try work() } catch {
                    if failure.withLock({ failure in defer { failure = failure ?? "\(name): \(error)" }; return failure == nil }) {
                        failed.signal()
                    }
                }
            }.start()
        }
        spawn("load") { _ = try load.run(threads: threads, rate: rate, until: end) }
        spawn("faults") {
            try SoakFaultSchedule(alertTokens: alertTokens).run(on: chain, restarts: restarts, from: start, minutes: minutes,
                                                               stop: stopFaults) { name in faultsDone.withLock { $0.append(name) } }
        }

        var samples: [SoakSample] = []
        for index in 1...(minutes * 60 / sampleSeconds) {
            let due = start + .seconds(index * sampleSeconds)
            if failed.wait(timeout: .now() + ContinuousClock.now.duration(to: due).inSeconds) == .success { break }
            let window = load.takeWindow()
            let (relayPid, hostPid) = (chain.relayPid, chain.hostPid)
            let sample = SoakSample(
                second: index * sampleSeconds, requestsPerSecond: Double(window.requests) / Double(sampleSeconds),
                eventP99Ms: window.eventLatencies.count > 0 ? window.eventLatencies.milliseconds(percentiles: [0.99])[0] : nil,
                hostRSSKiB: SoakSample.residentKiB(of: hostPid), hostDescriptors: SoakSample.descriptors(of: hostPid),
                relayRSSKiB: SoakSample.residentKiB(of: relayPid), relayDescriptors: SoakSample.descriptors(of: relayPid),
                outboxDepth: (try? outbox(chain)).map { Int($0.depth) }, resent: window.resent,
                faults: faultsDone.withLock { faults in defer { faults = [] }; return faults })
            progress(sample.row)
            samples.append(sample)
        }
        load.stop()
        stopFaults.signal()
        finished.wait()
        if let message = failure.withLock({ $0 }) { throw ToolFailure(message) }

        let drain = try AsyncBridge.wait {
            try await OutboxDrain.wait(within: Double(drainSeconds), every: .milliseconds(200)) {
                try await onOwnThread { try outbox(chain) }
            }
        }
        let verdict = SoakVerdict(samples: samples, minutes: minutes)
        print("- Capacity: \(Int(capacity)) requests/s of the mix (closed loop, \(threads) connections, \(capacitySeconds) s); "
              + "driven at \(Int(rate)) requests/s for \(minutes) min")
        print("- Devices: \(devices) alert tokens, \(SoakMix.liveActivitySessions.count) Live Activity tokens")
        print("- Outbox after the load: " + (drain.depth == 0 ? "empty within \(drain.cell)" : "not empty"))
        print()
        print(SoakSample.header)
        for sample in samples { print(sample.row) }
        print()
        print(SoakVerdict.header)
        for judgement in verdict.judgements { print(judgement.row) }
        guard drain.depth == 0 else { throw ToolFailure("the host's outbox still held entries \(drainSeconds) s after the load") }
        guard verdict.passed else {
            throw ToolFailure("grew by more than allowed: "
                              + verdict.judgements.filter { !$0.passed }.map(\.series).joined(separator: ", "))
        }
    }

    /// Registers `devices` alert tokens and one Live Activity token per ``SoakMix/liveActivitySessions``
    /// through the host's API; returns the alert tokens.
    private static func register(devices: Int, on chain: SoakChain) throws -> [String] {
        let api = try BenchHTTPConnection(host: "127.0.0.1", port: chain.hostPort, bearer: chain.accessToken,
                                          receiveTimeoutSeconds: SoakLoad.receiveTimeoutSeconds)
        let tokens = (0..<devices).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        for token in tokens {
            try expect200(api.post("/api/push/apns-token", body: Array(JSONObject([("token", .string(token))]).serialized().utf8)),
                          "registering a device token")
        }
        for session in SoakMix.liveActivitySessions {
            let body = SoakMix.liveActivityRegistration(token: Hex.encode(SecureRandom.bytes(32)), session: session)
            try expect200(api.post("/api/push/live-activity-token", body: body), "registering a Live Activity token")
        }
        return tokens
    }

    /// The `outbox` object of the host's `GET /api/status` and its depth.
    private static func outbox(_ chain: SoakChain) throws -> (outbox: JSONValue, depth: Int64) {
        let api = try BenchHTTPConnection(host: "127.0.0.1", port: chain.hostPort, bearer: chain.accessToken, receiveTimeoutSeconds: 5)
        let reply = try api.request("GET", "/api/status")
        try expect200(reply, "GET /api/status")
        guard let outbox = try JSONValue.parse(reply.body)["outbox"], let depth = outbox["depth"]?.int64Value else {
            throw ToolFailure("GET /api/status has no outbox depth")
        }
        return (outbox, depth)
    }

    private static func expect200(_ reply: BenchHTTPConnection.Reply, _ what: String) throws {
        guard reply.status == 200 else { throw ToolFailure("\(what) answered \(reply.status): \(String(decoding: reply.body, as: UTF8.self))") }
    }

    private static func progress(_ line: String) { ToolCommand.printError("soak: " + line) }
}
