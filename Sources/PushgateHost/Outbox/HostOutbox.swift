import PushgateCore
import Synchronization

/// The host's durable outbox: the pushes an event could not get accepted at once, kept in
/// `host.sqlite` and sent again with back-off until they are accepted, found dead or refused,
/// or their deadline passes (docs/host.md, "Outbox").
///
/// One timer, set for the earliest entry due; a round reads the due entries, hands each kind to
/// its sender and settles them in one transaction. Rounds never overlap: a timer that fires
/// during one makes it look again when it ends. After a restart (also after `kill -9`)
/// ``start()`` finds what is due from the table.
public final class HostOutbox: Sendable {
    /// Entries read per round.
    static let roundSize = 500
    /// How long a round that failed on the store waits before the next.
    static let storeRetryMs: Int64 = 5_000

    public let policy: OutboxPolicy
    public let counters = OutboxCounters()
    private let store: HostStore
    private let scheduler: any Scheduler
    private let logger: Logger
    private let senders = Mutex<[OutboxEntry.Kind: any OutboxSender]>([:])
    private let state = Mutex(State())

    private struct State {
        var timer: (any ScheduledJob)?
        var timerDueMs: Int64 = .max
        /// Raised with every timer armed: a cancelled timer whose job runs anyway is ignored.
        var timerGeneration = 0
        /// The round under way, if any.
        var round: Task<Void, Never>?
        /// A timer fired during the round: it looks again when done.
        var again = false
        /// What a round decided but could not write: written before anything is sent again, so
        /// an accepted push is never sent twice because its row could not be deleted.
        var unsettled: HostStore.OutboxSettlement?
        var stopped = false
    }

    public init(store: HostStore, policy: OutboxPolicy, scheduler: any Scheduler, logger: Logger) {
        self.store = store
        self.policy = policy
        self.scheduler = scheduler
        self.logger = logger.named("outbox")
    }

    /// Sets the sender of a kind; an entry of a kind without one waits.
    func register(_ sender: any OutboxSender, for kind: OutboxEntry.Kind) {
        senders.withLock { $0[kind] = sender }
    }

    /// Arms the timer for what the table holds (entries left by an earlier run).
    public func start() async throws {
        let summary = try await store.outboxSummary()
        if let next = summary.nextAttemptAtMs {
            logger.info("resuming the outbox", ["entries": "\(summary.depth)"])
            arm(at: next)
        }
    }

    /// The first try's time of a new entry's retry: nil when none is worth making (refused, or
    /// the deadline would pass first).
    func firstRetry(after advice: RetryAdvice, nowMs: Int64) -> Int64? {
        guard advice.retryable else { return nil }
        return policy.nextAttempt(afterAttempts: 1, createdAtMs: nowMs, nowMs: nowMs, retryAfterSeconds: advice.afterSeconds)
    }

    /// Writes the entries of one event (one transaction) and arms the timer for them; returns how
    /// many were written (an alert for a prompt answered meanwhile is not). Throws when the store
    /// cannot take them (a full disk): nothing of them is kept.
    @discardableResult
    public func enqueue(_ entries: [OutboxEntry]) async throws -> Int {
        guard !entries.isEmpty else { return 0 }
        let (queued, evicted) = try await store.enqueueOutbox(entries, maxEntries: policy.maxEntries)
        counters.add {
            $0.queued += queued
            $0.evicted += evicted
        }
        if evicted > 0 {
            logger.warning("outbox full (PUSHGATE_OUTBOX_MAX): the oldest entries were dropped", ["entries": "\(evicted)"])
        }
        if let due = entries.map(\.nextAttemptAtMs).min() { arm(at: due) }
        return queued
    }

    /// Cancels the timer, waits for the round under way and lets go of the senders.
    public func stop() async {
        let round = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.timer?.cancel()
            state.timer = nil
            return state.round
        }
        await round?.value
        // A sender holds this outbox (its failures become entries): kept, the two keep each other.
        senders.withLock { $0.removeAll() }
    }

    /// Waits for the round under way, if any, and those it chains (for tests on a manual clock).
    func waitForRound() async {
        while let round = state.withLock({ $0.round }) { await round.value }
    }

    /// `{depth, oldestAgeSeconds, queued, retries, delivered, dead, expired, evicted, failed}` for `/api/status`.
    public func status() async throws -> JSONValue {
        let summary = try await store.outboxSummary()
        let nowMs = scheduler.clock.nowMilliseconds
        var object = JSONObject([
            ("depth", .integer(Int64(summary.depth))),
            ("oldestAgeSeconds", summary.oldestCreatedAtMs.map { .integer(max(0, nowMs - $0) / 1_000) } ?? .null),
        ])
        for (name, value) in counters.current.all { object[name] = .integer(Int64(value)) }
        return .object(object)
    }

    // MARK: Rounds

    private func arm(at dueMs: Int64) {
        state.withLock { state in
            guard !state.stopped, dueMs < state.timerDueMs else { return }
            state.timer?.cancel()
            state.timerDueMs = dueMs
            state.timerGeneration += 1
            let generation = state.timerGeneration
            state.timer = scheduler.schedule(afterMs: dueMs - scheduler.clock.nowMilliseconds) { [weak self] in
                self?.startRound(timer: generation)
            }
        }
    }

    /// Starts a round, or marks the one under way to look again; `timer` is the generation of
    /// the timer that fired, if one did.
    private func startRound(timer: Int? = nil) {
        state.withLock { state in
            if let timer {
                guard timer == state.timerGeneration else { return }
                state.timer = nil
                state.timerDueMs = .max
            }
            guard !state.stopped else { return }
            guard state.round == nil else {
                state.again = true
                return
            }
            state.round = Task { await self.rounds() }
        }
    }

    /// Rounds until nothing is due (or the outbox stops), then arms the timer for the next entry.
    private func rounds() async {
        var next: Int64?
        do {
            if let unsettled = state.withLock({ $0.unsettled }) {
                try await store.settleOutbox(unsettled)
                state.withLock { $0.unsettled = nil }
            }
            var full = true
            while full, !state.withLock({ $0.stopped }) {
                let due = try await store.dueOutbox(nowMs: scheduler.clock.nowMilliseconds, limit: Self.roundSize)
                full = due.count == Self.roundSize
                guard !due.isEmpty else { break }
                let settlement = await attempt(due)
                do {
                    try await store.settleOutbox(settlement)
                } catch {
                    state.withLock { $0.unsettled = settlement }
                    throw error
                }
            }
            next = try await store.outboxSummary().nextAttemptAtMs
        } catch {
            logger.error("outbox round failed on the host store; tried again in 5 s", ["error": "\(error)"])
            next = scheduler.clock.nowMilliseconds + Self.storeRetryMs
        }
        let again = state.withLock { state in
            defer {
                state.round = nil
                state.again = false
            }
            return state.again
        }
        if again {
            startRound()
        } else if let next {
            arm(at: next)
        }
    }

    /// Tries each due entry once through its kind's sender and says what becomes of it.
    private func attempt(_ due: [OutboxEntry]) async -> HostStore.OutboxSettlement {
        var settlement = HostStore.OutboxSettlement()
        let nowMs = scheduler.clock.nowMilliseconds
        var live: [OutboxEntry.Kind: [OutboxEntry]] = [:]
        for entry in due {
            if nowMs - entry.createdAtMs > policy.deadlineMs {
                settlement.finished.append(entry.id)
                counters.add { $0.expired += 1 }
            } else {
                live[entry.kind, default: []].append(entry)
            }
        }
        let senders = self.senders.withLock { $0 }
        for (kind, entries) in live {
            // No sender (that transport is off now): the entries wait, backing off, until their deadline.
            var outcomes: [Int64: TokenOutcome] = [:]
            if let sender = senders[kind] {
                outcomes = await sender.resend(entries)
                // What the sender answered was taken up; the rest waits untried.
                counters.add { $0.retries += outcomes.count }
            }
            let afterMs = scheduler.clock.nowMilliseconds
            for entry in entries {
                switch outcomes[entry.id] ?? .failed(.later) {
                case .accepted:
                    settlement.finished.append(entry.id)
                    counters.add { $0.delivered += 1 }
                case .dropped:
                    settlement.finished.append(entry.id)
                    counters.add { $0.dead += 1 }
                case .failed(let advice):
                    let next = advice.retryable ? policy.nextAttempt(afterAttempts: entry.attempts + 1, createdAtMs: entry.createdAtMs,
                                                                       nowMs: afterMs, retryAfterSeconds: advice.afterSeconds) : nil
                    if let next {
                        settlement.rescheduled.append((entry.id, entry.attempts + 1, next))
                    } else {
                        settlement.finished.append(entry.id)
                        counters.add { counts in
                            if advice.retryable { counts.expired += 1 } else { counts.failed += 1 }
                        }
                    }
                }
            }
        }
        if !settlement.finished.isEmpty || !settlement.rescheduled.isEmpty {
            logger.info("outbox round", ["tried": "\(due.count)", "finished": "\(settlement.finished.count)",
                                         "again": "\(settlement.rescheduled.count)"])
        }
        return settlement
    }
}
