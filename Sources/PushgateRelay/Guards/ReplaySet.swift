import PushgateCore
import PushgateStore
import Synchronization

/// The relay's replay set: the keys of this process in memory (``ReplayKeyTable``), written
/// through to a journal file on a SQLite relay, and checked against the database's shared set on
/// a PostgreSQL relay.
///
/// - Important: docs/relay.md "Replay set". Send-type routes ``claim(_:nowMs:)`` a key before the
///   per-`serverId` limit and ``record(_:expiresAtMs:client:nowMs:)`` it after, so a replay
///   never spends a host's budget and a request the limit refuses is not recorded.
public final class ReplaySet: Sendable {
    private struct State: ~Copyable {
        var table: ReplayKeyTable
        /// Keys of send-type requests between their lookup and their record: a copy arriving
        /// meanwhile is a replay, so it never reaches the per-`serverId` limit.
        var claimed: Set<ReplayDigest> = []
        /// Keys of register-type requests whose work is under way, with the copies waiting for
        /// its outcome.
        var inWork: [ReplayDigest: [CheckedContinuation<RelayError?, Never>]] = [:]
        var journal: ReplayJournal?
        /// Whether the last journal write failed (logged once per run of failures).
        var journalFailing = false
    }

    private let state: Mutex<State>
    private let shared: (any ReplayKeyStore)?
    private let logger: Logger
    private let ceilingRefusals = Atomic<Int>(0)

    /// - Parameters:
    ///   - ceiling: `MAX_REPLAY_KEYS`.
    ///   - journal: the SQLite relay's journal, already opened, and the live keys it held.
    ///   - shared: the PostgreSQL relay's shared set.
    public init(ceiling: Int, journal: sending (ReplayJournal, [(ReplayDigest, Int64)])? = nil,
                shared: (any ReplayKeyStore)? = nil, logger: Logger, nowMs: Int64) {
        var table = ReplayKeyTable(ceiling: ceiling)
        // Keys from before a restart belong to no client that is known now.
        for (digest, expiry) in journal?.1 ?? [] {
            _ = table.insert(digest, expiresAtMs: expiry, client: "", nowMs: nowMs)
        }
        state = Mutex(State(table: table, journal: journal?.0))
        self.shared = shared
        self.logger = logger
    }

    /// Requests refused because the set was at its ceiling (metric).
    public var refusedAtCeiling: Int { ceilingRefusals.load(ordering: .relaxed) }

    /// Claims `digest` for a request on its way to the per-`serverId` limit: `false` when it is
    /// a live key here or, on PostgreSQL, at any relay, or another copy holds the claim. A
    /// claim ends with ``record(_:expiresAtMs:client:nowMs:)`` or ``release(_:)``.
    func claim(_ digest: ReplayDigest, nowMs: Int64) async throws -> Bool {
        let free = state.withLock { state in
            guard !state.table.contains(digest, nowMs: nowMs), !state.claimed.contains(digest) else { return false }
            state.claimed.insert(digest)
            return true
        }
        guard free, let shared else { return free }
        do {
            guard try await !shared.contains(digest, nowMs: nowMs) else {
                release(digest)
                return false
            }
            return true
        } catch {
            release(digest)
            throw error
        }
    }

    /// Ends a claim whose request was refused before it was recorded.
    func release(_ digest: ReplayDigest) {
        _ = state.withLock { $0.claimed.remove(digest) }
    }

    /// Records `digest` for `client`: `.replay` when another request holds it already.
    /// - Parameter holdingCopies: a fresh key stays in work until ``settle(_:failure:)``, and a
    ///   copy arriving meanwhile waits for that outcome (``outcomeOfOriginal(_:)``); for
    ///   register-type requests, whose copies answer as the original did.
    func record(_ digest: ReplayDigest, expiresAtMs: Int64, client: String, nowMs: Int64,
                holdingCopies: Bool = false) async throws -> ReplayKeyTable.Outcome {
        let outcome = state.withLock { state in
            state.claimed.remove(digest)
            let (outcome, evicted) = state.table.insert(digest, expiresAtMs: expiresAtMs, client: client, nowMs: nowMs)
            if outcome == .fresh {
                if holdingCopies { state.inWork[digest] = [] }
                journal(&state) { journal throws(ReplayJournal.Failure) in
                    if let evicted { try journal.appendForget(evicted) }
                    try journal.append(digest, expiresAtMs: expiresAtMs)
                }
            }
            return outcome
        }
        if outcome == .refused { ceilingRefusals.add(1, ordering: .relaxed) }
        guard outcome == .fresh, let shared else { return outcome }
        do {
            guard try await shared.insert(digest, expiresAtMs: expiresAtMs) else {
                // Another instance holds the key: this request is the copy, and so are those waiting on it.
                settle(digest, failure: nil)
                return .replay
            }
            return .fresh
        } catch {
            // The shared row may exist (written by another instance, or committed before the
            // failure): only this process's copy goes.
            forgetHere(digest)
            settle(digest, failure: .storeFailure(error))
            throw error
        }
    }

    /// Ends the work of a key recorded `holdingCopies`: its waiting copies answer `failure`, or
    /// as a success when it is `nil`.
    func settle(_ digest: ReplayDigest, failure: RelayError?) {
        let waiting = state.withLock { $0.inWork.removeValue(forKey: digest) } ?? []
        for copy in waiting { copy.resume(returning: failure) }
    }

    /// For a copy of a register-type request: waits until the original's work is done and
    /// returns how it failed, or `nil` when it succeeded or is no longer in work here.
    func outcomeOfOriginal(_ digest: ReplayDigest) async -> RelayError? {
        await withCheckedContinuation { (copy: CheckedContinuation<RelayError?, Never>) in
            let waiting = state.withLock { state -> Bool in
                guard state.inWork[digest] != nil else { return false }
                state.inWork[digest]?.append(copy)
                return true
            }
            if !waiting { copy.resume(returning: nil) }
        }
    }

    /// Forgets `digest`, so a request whose work failed can be retried with the same signature.
    func forget(_ digest: ReplayDigest) async {
        forgetHere(digest)
        do {
            try await shared?.forget(digest)
        } catch {
            logger.warning("could not forget a replay key; a retry of that request counts as a replay", ["error": "\(error)"])
        }
    }

    private func forgetHere(_ digest: ReplayDigest) {
        state.withLock { state in
            state.table.forget(digest)
            journal(&state) { journal throws(ReplayJournal.Failure) in try journal.appendForget(digest) }
        }
    }

    /// Drops expired keys (and rewrites the journal once dead records outnumber live ones).
    func purge(nowMs: Int64) async throws {
        state.withLock { state in
            state.table.purge(nowMs: nowMs)
            let live = state.table.count
            if let journal = state.journal, journal.recordCount > 2 * live + 4_096 {
                let snapshot = state.table.snapshot
                self.journal(&state) { journal throws(ReplayJournal.Failure) in try journal.compact(snapshot) }
            }
        }
        try await shared?.purge(nowMs: nowMs)
    }

    /// Closes the journal (its file and its lock go with it); keys recorded later stay in memory.
    func closeJournal() {
        state.withLock { $0.journal = nil }
    }

    /// Live keys: this process's, or on PostgreSQL the shared set's.
    func keyCount() async throws -> Int {
        if let shared { return try await shared.keyCount() }
        return state.withLock { $0.table.count }
    }

    /// Runs a journal write; a failure leaves the key in memory (still refused until a restart)
    /// and is logged once per run of failures.
    private func journal(_ state: inout State, _ write: (ReplayJournal) throws(ReplayJournal.Failure) -> Void) {
        guard let journal = state.journal else { return }
        do {
            try write(journal)
            if state.journalFailing {
                state.journalFailing = false
                logger.info("replay journal writes again", ["path": journal.path])
            }
        } catch {
            if !state.journalFailing {
                state.journalFailing = true
                logger.error("replay journal write failed; replays stay refused until a restart; check the disk",
                             ["error": error.description])
            }
        }
    }
}
