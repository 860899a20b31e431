import Synchronization

/// Applies concurrent writes in shared transactions: writes that arrive while one transaction
/// is being committed wait, then all go into the next one, so one fsync serves many callers.
///
/// Each caller is resumed only after the transaction holding its write has committed, with its
/// own outcome. If a shared transaction fails, its writes are retried one transaction each, so
/// only the write that really fails reports an error.
final class GroupCommitQueue<Connection: StoreConnection>: Sendable {
    /// A write waiting for its transaction.
    private struct PendingWrite: Sendable {
        /// Applies the write inside the open transaction; returns what resumes its caller after commit.
        let apply: @Sendable (Connection) throws -> @Sendable () -> Void
        /// Resumes its caller with an error.
        let fail: @Sendable (any Error) -> Void
        /// When its caller must have an answer (the worker's call timeout from submission), if ever.
        let deadline: ContinuousClock.Instant?
    }

    private struct State {
        var pending: [PendingWrite] = []
        var draining = false
        var closed = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Callers of ``waitForPending(atLeast:)`` and the count each waits for.
        var pendingWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let worker: ConnectionWorker<Connection>
    private let maxBatch: Int
    private let state = Mutex(State())
    private let commits = Atomic<Int>(0)

    /// A queue writing through `worker`, at most `maxBatch` writes per transaction.
    init(worker: ConnectionWorker<Connection>, maxBatch: Int = 512) {
        precondition(maxBatch > 0)
        self.worker = worker
        self.maxBatch = maxBatch
    }

    /// Transactions committed so far.
    var commitCount: Int { commits.load(ordering: .relaxed) }

    /// Writes waiting for a transaction (not counting the one being committed).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Returns once at least `count` writes wait (tests hold the worker and pile writes up).
    func waitForPending(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.pending.count < count else { return true }
                state.pendingWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Runs `write` inside a shared write transaction and returns its result once that
    /// transaction has committed.
    /// - Throws: what `write` or the commit throws; ``StoreClosedError`` after ``close()``.
    func submit<Outcome: Sendable>(_ write: @escaping @Sendable (Connection) throws -> Outcome) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(PendingWrite(
                apply: { connection in
                    let outcome = try write(connection)
                    return { continuation.resume(returning: outcome) }
                },
                fail: { continuation.resume(throwing: $0) },
                deadline: worker.callDeadline()))
        }
    }

    /// Refuses new writes and returns once every accepted write has been answered.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                state.closed = true
                guard state.draining else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// What ``enqueue(_:)`` does once the write is queued.
    private enum EnqueueAction { case refuse, wait, startDraining }

    private func enqueue(_ write: PendingWrite) {
        let (action, ready) = state.withLock { state -> (EnqueueAction, [CheckedContinuation<Void, Never>]) in
            guard !state.closed else { return (.refuse, []) }
            state.pending.append(write)
            let count = state.pending.count
            let ready = state.pendingWaiters.filter { $0.count <= count }.map(\.continuation)
            state.pendingWaiters.removeAll { $0.count <= count }
            guard !state.draining else { return (.wait, ready) }
            state.draining = true
            return (.startDraining, ready)
        }
        ready.forEach { $0.resume() }
        switch action {
        case .refuse: write.fail(StoreClosedError())
        case .wait: break
        case .startDraining: worker.enqueue { self.drain(on: $0) }
        }
    }

    private func drain(on connection: Connection?) {
        guard let connection else {
            // The worker was closed under us: nothing can be written any more.
            while let batch = nextBatch() { batch.forEach { $0.fail(StoreClosedError()) } }
            return
        }
        while let batch = nextBatch() { commit(batch, on: connection) }
    }

    /// Takes the next writes to commit, or, when none are left, ends draining and wakes `close()`.
    private func nextBatch() -> [PendingWrite]? {
        let (batch, waiters) = state.withLock { state -> ([PendingWrite]?, [CheckedContinuation<Void, Never>]) in
            guard state.pending.isEmpty else {
                let batch = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(batch.count)
                return (batch, [])
            }
            state.draining = false
            defer { state.idleWaiters.removeAll() }
            return (nil, state.idleWaiters)
        }
        waiters.forEach { $0.resume() }
        return batch
    }

    private func commit(_ batch: [PendingWrite], on connection: Connection) {
        do {
            let transaction = { try connection.writeTransaction { try batch.map { try $0.apply(connection) } } }
            // The earliest caller's deadline bounds the group; alone, the others get their own below.
            let deadline = batch.compactMap(\.deadline).min()
            let resumes = try deadline.map { try connection.withDeadline($0, transaction) } ?? transaction()
            commits.add(1, ordering: .relaxed)
            resumes.forEach { $0() }
        } catch {
            guard batch.count > 1 else { return batch[0].fail(error) }
            // Something in the group failed; alone, every other write can still succeed.
            for write in batch { commit([write], on: connection) }
        }
    }
}
