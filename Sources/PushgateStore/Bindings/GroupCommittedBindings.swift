import Synchronization

/// The ``BindingStore`` over one engine's connections: writes group-committed through the
/// writer, reads on the readers in turn. ``SQLiteBindingStore`` and ``PostgreSQLBindingStore``
/// are this store on their engine and differ only in how they open their connections.
public final class GroupCommittedBindings<Connection: StoreConnection>: BindingStore {
    private let writer: ConnectionWorker<Connection>
    private let readers: [ConnectionWorker<Connection>]
    private let nextReader = Atomic<Int>(0)
    private let commits: GroupCommitQueue<Connection>
    private let policy: BindingPolicy
    /// Where the next TTL sweep step starts; `nil` at the start of the table.
    private let sweepCursor = Mutex<BindingRecord.Key?>(nil)

    /// Bindings one sweep step looks at: a short transaction, so registers wait little.
    static var sweepStep: Int { 1_000 }

    init(writer: ConnectionWorker<Connection>, readers: [ConnectionWorker<Connection>], policy: BindingPolicy) {
        precondition(!readers.isEmpty, "at least one reader")
        self.writer = writer
        self.readers = readers
        self.commits = GroupCommitQueue(worker: writer)
        self.policy = policy
    }

    /// Write transactions committed so far (each may hold many writes), for tests and metrics.
    public var commitCount: Int { commits.commitCount }

    public func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64,
                         mayAddToken: Bool) async throws -> RegisterOutcome {
        let policy = policy
        return try await commits.submit { connection in
            try BindingRules.register(token: token, kind: kind, serverId: serverId, nowMs: nowMs, mayAddToken: mayAddToken,
                                       policy: policy, on: connection)
        }
    }

    public func unregister(token: String, kind: BindingKind, serverId: String) async throws -> UnregisterOutcome {
        try await commits.submit { connection in
            try BindingRules.unregister(token: token, kind: kind, serverId: serverId, on: connection)
        }
    }

    public func boundTokens(_ tokens: [String], kinds: [BindingKind], serverId: String, nowMs: Int64) async throws -> [String: BindingKind] {
        let since = nowMs - policy.ttlMs
        return try await reader().run { connection in
            try BindingRules.boundTokens(tokens, kinds: kinds, serverId: serverId, refreshedSince: since, on: connection)
        }
    }

    @discardableResult
    public func deleteToken(_ token: String, kind: BindingKind) async throws -> Int {
        try await commits.submit { connection in try BindingRules.deleteToken(token, kind: kind, on: connection) }
    }

    @discardableResult
    public func removeBinding(token: String, kind: BindingKind, serverId: String) async throws -> Bool {
        try await commits.submit { connection in
            try BindingRules.removeBinding(token: token, kind: kind, serverId: serverId, on: connection)
        }
    }

    public func count() async throws -> Int {
        try await reader().run { connection in try BindingRules.tokenCount(on: connection) }
    }

    @discardableResult
    public func sweep(nowMs: Int64) async throws -> Int {
        let (since, cursor) = (nowMs - policy.ttlMs, sweepCursor.withLock { $0 })
        let step = try await commits.submit { connection in
            try BindingRules.sweep(after: cursor, limit: Self.sweepStep, refreshedSince: since, nowMs: nowMs, on: connection)
        }
        // Moved on only after the commit: a step that failed is tried again from the same place.
        sweepCursor.withLock { $0 = step.next }
        return step.removed
    }

    public func bindings(of token: String) async throws -> [BindingRecord] {
        try await reader().run { connection in try BindingRules.bindings(of: token, on: connection) }
    }

    public func clear(token: String) async throws -> Int {
        try await commits.submit { connection in try BindingRules.clear(token, on: connection) }
    }

    /// Answers every write already accepted, then closes every connection; later calls throw
    /// ``StoreClosedError``.
    public func close() async {
        await commits.close()
        await writer.close()
        for reader in readers { await reader.close() }
    }

    /// The readers in turn.
    private func reader() -> ConnectionWorker<Connection> {
        let turn = UInt(bitPattern: nextReader.add(1, ordering: .relaxed).oldValue)
        return readers[Int(turn % UInt(readers.count))]
    }
}
