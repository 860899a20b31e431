import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateHost

/// `pushgate-dev bench live-activity`: the CPU time of one Live Activity refresh tick of the host
/// over many tokens — when nothing changed (no request may leave) and when a share of the
/// tokens changed (one signed request each) — after the store's copy was reloaded, and the
/// store reads of a tick with no tokens. The real engine and SQLite store in a temporary
/// directory; the transport signs each request as the relay transport does and accepts every
/// token, so the figures are the host's own work without the network.
enum BenchLiveActivitySuite {
    static let usage = "pushgate-dev bench live-activity [--tokens N] [--changed-percent P] [--ticks N]"

    /// Rows per token: the token's own session and three sessions shared with other tokens.
    private static let rowsPerToken = 4

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let tokens = try arguments.wholeNumber("tokens", in: 100...1_000_000, default: 10_000)
        let percent = try arguments.wholeNumber("changed-percent", in: 1...100, default: 1)
        let ticks = try arguments.wholeNumber("ticks", in: 1...10_000, default: 20)
        try arguments.finish()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-live-activity-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for figure in try AsyncBridge.wait({ try await measure(tokens: tokens, percent: percent, ticks: ticks, directory: directory) }) {
            report(figure)
        }
    }

    private static func measure(tokens count: Int, percent: Int, ticks: Int, directory: String) async throws -> [BenchFigure] {
        let empty = try await engine(path: directory + "/empty.sqlite")
        let readsBefore = await empty.store.reads
        guard try await empty.startTick()?.value == LiveActivityDelivery() else { throw ToolFailure("an empty tick sent something") }
        let emptyReads = await empty.store.reads - readsBefore

        let path = directory + "/host.sqlite"
        let live = try await engine(path: path)
        try await fill(live, tokens: count)
        let label = "\(BenchFigure.grouped(count)) tokens × \(rowsPerToken) rows"

        var unchanged = BenchTicks()
        for _ in 0..<ticks {
            let reads = await live.store.reads
            try await unchanged.time(live, expectRequests: 0)
            unchanged.reads = await live.store.reads - reads
        }

        // Every tick moves the own session of `changed` tokens between busy and retry.
        let changed = max(1, count * percent / 100)
        let stride = count / changed
        var moved = BenchTicks()
        for tick in 0..<ticks {
            for index in Swift.stride(from: 0, to: changed * stride, by: stride) {
                _ = try await live.updateSession(SessionStateUpdate(
                    sessionId: ownSession(index), state: SessionState(status: tick % 2 == 0 ? .retry : .busy)))
            }
            try await moved.time(live, expectRequests: changed)
        }

        // A write from another connection (an import while the host runs) makes the next tick reload the copy.
        var reloaded = BenchTicks()
        let importer = try HostStore(path: path, clock: SystemClock())
        for round in 0..<3 {
            try await importer.upsertLiveActivityToken(ImportedLiveActivityToken(
                token: Hex.encode(SecureRandom.bytes(32)), activityId: "import-\(round)", sessionId: nil, client: "importer",
                snapshotJSON: "[]"))
            try await reloaded.time(live, expectRequests: 0)
        }

        return [BenchFigure(name: "live_activity.empty_tick_store_reads", value: Double(emptyReads), unit: "reads",
                            detail: "a tick with no Live Activity tokens")]
            + unchanged.figures("live_activity.tick_unchanged", "\(label), nothing changed")
            + [BenchFigure(name: "live_activity.tick_unchanged_requests", value: Double(unchanged.requests), unit: "requests",
                           detail: "over \(ticks) ticks"),
               BenchFigure(name: "live_activity.tick_unchanged_store_reads", value: Double(unchanged.reads), unit: "reads")]
            + moved.figures("live_activity.tick_changed", "\(label), \(BenchFigure.grouped(changed)) changed (\(percent)%)")
            + [BenchFigure(name: "live_activity.tick_changed_requests", value: Double(moved.requests / ticks), unit: "requests/tick")]
            + reloaded.figures("live_activity.tick_reload", "\(label), copy reloaded after another connection wrote")
    }

    /// An engine over the store at `path` with the signing transport; ticks are started by hand.
    private static func engine(path: String) async throws -> LiveActivityEngine {
        let engine = LiveActivityEngine(store: try LiveActivityStore(path: path), transport: SigningTransport(),
                                        scheduler: ManualScheduler(), refreshIntervalMs: 0,
                                        logger: Logger(component: "bench", minimumLevel: .error))
        _ = try await engine.store.all()
        return engine
    }

    /// Registers `count` tokens, one per phone, each showing its own session and three of 30
    /// shared ones, all busy; the sessions' states say so, so a tick finds nothing to change.
    private static func fill(_ engine: LiveActivityEngine, tokens count: Int) async throws {
        let startedAt = Double(SystemClock().nowMilliseconds / 1_000)
        func shared(_ index: Int, _ slot: Int) -> String { "shared-\((index % 10) * 3 + slot)" }
        for index in 0..<count {
            let rows = try [LiveActivityItem(sessionID: ownSession(index), title: "Task \(index)", status: .working, startedAt: startedAt)]
                + (0..<(rowsPerToken - 1)).map { slot in
                    try LiveActivityItem(sessionID: shared(index, slot), title: "Shared \(shared(index, slot))", status: .working,
                                         startedAt: startedAt)
                }
            let registration = LiveActivityRegistration(token: Hex.encode(SecureRandom.bytes(32)), activityId: "activity-\(index)",
                                                        sessionId: ownSession(index), rows: rows, client: "phone-\(index)")
            guard case .stored = try await engine.store.register(registration, defaultRows: [], maxPerClient: 8,
                                                                 nowMs: SystemClock().nowMilliseconds) else {
                throw ToolFailure("a registration was refused")
            }
        }
        for session in Set((0..<count).flatMap { index in [ownSession(index)] + (0..<(rowsPerToken - 1)).map { shared(index, $0) } }) {
            _ = try await engine.updateSession(SessionStateUpdate(sessionId: session, state: SessionState(status: .busy)))
        }
    }

    private static func ownSession(_ index: Int) -> String { "own-\(index)" }
}

/// CPU and wall time of a series of ticks.
private struct BenchTicks {
    var cpuMilliseconds: [Double] = []
    var wallMilliseconds: [Double] = []
    var requests = 0
    var reads = 0

    /// Runs one tick and records its process CPU time (every thread: the store runs on its own).
    mutating func time(_ engine: LiveActivityEngine, expectRequests: Int) async throws {
        let cpu = BenchProcess.cpuSeconds()
        let wall = ContinuousClock.now
        guard let delivery = try await engine.startTick()?.value else { throw ToolFailure("a tick was dropped") }
        let elapsed = wall.duration(to: .now)
        cpuMilliseconds.append((BenchProcess.cpuSeconds() - cpu) * 1_000)
        wallMilliseconds.append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) * 1e-15)
        guard delivery.requests == expectRequests, delivery.failed == 0 else {
            throw ToolFailure("a tick sent \(delivery.requests) requests (\(delivery.failed) failed), expected \(expectRequests)")
        }
        requests += delivery.requests
    }

    /// `<prefix>_cpu_ms`, the median CPU time (min and max in its detail); `<prefix>_cpu_max_ms`,
    /// the slowest tick's; `<prefix>_wall_ms`, the median wall time.
    func figures(_ prefix: String, _ label: String) -> [BenchFigure] {
        let cpu = cpuMilliseconds.sorted(), wall = wallMilliseconds.sorted()
        return [
            BenchFigure(name: prefix + "_cpu_ms", value: cpu[cpu.count / 2], unit: "ms CPU",
                        detail: "\(label); \(cpu.count) ticks, CPU min \(BenchFigure.twoDecimals(cpu[0])) "
                            + "max \(BenchFigure.twoDecimals(cpu[cpu.count - 1])) ms"),
            BenchFigure(name: prefix + "_cpu_max_ms", value: cpu[cpu.count - 1], unit: "ms CPU"),
            BenchFigure(name: prefix + "_wall_ms", value: wall[wall.count / 2], unit: "ms"),
        ]
    }
}

/// Builds and signs each request body as ``RelayLiveActivityTransport`` does, sends nothing,
/// and accepts every token.
private struct SigningTransport: LiveActivityTransport {
    let signer = RelayRequestSigner(key: P256PrivateKey())

    var name: String { "bench" }

    func prepare(_ tokens: [String], kind: LiveActivityTokenKind) async -> Set<String> { Set(tokens) }

    func unbind(_ token: String, kind: LiveActivityTokenKind) async {}

    func forget(_ tokens: [String], kind: LiveActivityTokenKind) async {}

    func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome] {
        guard let body = try? signer.liveActivity(push, environment: environment, priority: priority, ts: SystemClock().nowMilliseconds),
              !body.isEmpty else { return [:] }
        return Dictionary(push.tokens.map { ($0, .accepted) }, uniquingKeysWith: { first, _ in first })
    }

    func start(_ push: LiveActivityPush, start: LiveActivityStart, environment: String) async -> TokenOutcome {
        (try? signer.liveActivity(push, start: start, environment: environment, ts: SystemClock().nowMilliseconds)) == nil
            ? .failed(.never) : .accepted
    }
}
