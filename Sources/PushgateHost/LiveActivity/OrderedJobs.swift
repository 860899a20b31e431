import PushgateCore
import PushgateStore
import Synchronization

/// Runs async jobs one at a time, in the order they were submitted; submitting never blocks,
/// so a scheduler job can queue work without waiting for it. A job draws a numbered turn when
/// it is submitted and starts once every earlier turn has finished; the actor keeping the
/// turns runs on a queue-backed executor (the host database's, docs/host.md "Store").
actor OrderedJobs {
    private let executor: DispatchQueueExecutor
    /// Turns drawn so far.
    private nonisolated let drawn = Atomic<Int>(0)
    /// Turns finished so far: turn `n` starts once this reaches `n`.
    private var finished = 0
    /// The jobs waiting for their turn, by turn.
    private var waitingTurns: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Who waits in ``drain()``, and for how many finished turns.
    private var drainers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: DispatchQueueExecutor) { self.executor = executor }

    /// Queues `work` behind everything submitted before; the task gives its result.
    @discardableResult
    nonisolated func submit<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        let turn = drawn.wrappingAdd(1, ordering: .relaxed).oldValue
        return Task {
            await self.waitForTurn(turn)
            do {
                let result = try await work()
                await self.finishTurn()
                return result
            } catch {
                await self.finishTurn()
                throw error
            }
        }
    }

    /// Queues `work` and waits for its result.
    nonisolated func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await submit(work).value
    }

    /// Returns once every job submitted so far, and every job those submitted, has finished.
    func drain() async {
        while true {
            let target = drawn.load(ordering: .relaxed)
            if finished < target { await withCheckedContinuation { drainers.append((target, $0)) } }
            if drawn.load(ordering: .relaxed) == target { return }
        }
    }

    private func waitForTurn(_ turn: Int) async {
        guard finished < turn else { return }
        await withCheckedContinuation { waitingTurns[turn] = $0 }
    }

    private func finishTurn() {
        finished += 1
        waitingTurns.removeValue(forKey: finished)?.resume()
        guard !drainers.isEmpty else { return }
        let ready = drainers.filter { $0.count <= finished }
        drainers.removeAll { $0.count <= finished }
        for drainer in ready { drainer.continuation.resume() }
    }
}
