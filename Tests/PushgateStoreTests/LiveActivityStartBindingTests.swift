import PushgateTesting
import Testing
@testable import PushgateStore

/// The `liveactivitystart` binding kind (push-to-start tokens, docs/relay.md "Live Activity") on
/// both engines: kept apart from the other kinds, and taken on by a database from before it existed.
@Suite struct LiveActivityStartBindingTests {
    private let t0: Int64 = 1_764_669_600_000

    @Test(arguments: StoreEngine.allCases)
    func aPushToStartTokenIsAKindOfItsOwn(engine: StoreEngine) async throws {
        let t0 = t0
        try await engine.withStore { store, _ throws in
            let token = String(repeating: "ab", count: 32)
            #expect(try await store.register(token: token, kind: .liveActivityStart, serverId: "host-1", nowMs: t0) == .created)
            #expect(try await store.register(token: token, kind: .liveActivity, serverId: "host-1", nowMs: t0) == .created)
            #expect(try await store.register(token: token, kind: .liveActivityStart, serverId: "host-1", nowMs: t0 + 1) == .refreshed)
            #expect(try await store.boundTokens([token], kinds: [.liveActivityStart], serverId: "host-1", nowMs: t0)
                    == [token: .liveActivityStart])
            #expect(try await store.unregister(token: token, kind: .liveActivityStart, serverId: "host-1") == .removed)
            #expect(try await store.boundTokens([token], kinds: [.liveActivityStart], serverId: "host-1", nowMs: t0).isEmpty)
            #expect(try await store.boundTokens([token], kinds: [.liveActivity], serverId: "host-1", nowMs: t0) == [token: .liveActivity])
            #expect(try await store.count() == 1)
        }
    }

    /// Migration 7 makes the table again to widen its CHECK: no row may be lost on the way.
    @Test func aVersion6DatabaseKeepsEveryBindingThroughMigration7() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite")
        let t0 = t0
        let tokens = (0 ..< 30).map { String(format: "%064x", $0) }
        let kinds: [BindingKind] = [.alert, .android, .liveActivity]
        let snapshot = { @Sendable (connection: SQLiteConnection) throws -> [String] in
            try connection.texts("SELECT token || ' ' || kind || ' ' || server_id || ' ' || registered_at FROM bindings ORDER BY 1", [])
                + connection.texts("SELECT server_id || ' ' || tokens FROM host_token_count ORDER BY 1", [])
        }
        let (startAtVersion6, before) = try await onOwnThread { () throws -> (Result<RegisterOutcome, any Error>, [String]) in
            let connection = try SQLiteConnection(path: path)
            _ = try Migrator.migrate(connection, with: Array(RelaySchema.migrations.prefix(6)))
            func register(_ token: String, _ kind: BindingKind) throws -> RegisterOutcome {
                try connection.writeTransaction {
                    try BindingRules.register(token: token, kind: kind, serverId: "host-1", nowMs: t0, mayAddToken: true,
                                               policy: .permissive(), on: connection)
                }
            }
            for (n, token) in tokens.enumerated() { _ = try register(token, kinds[n % kinds.count]) }
            return (Result { try register(tokens[0], .liveActivityStart) }, try snapshot(connection))
        }
        // The proof that migration 7 is what admits the kind: version 6's CHECK refuses it.
        #expect(throws: SQLiteError.self) { try startAtVersion6.get() }
        #expect(before.count == tokens.count + 1)

        let store = try await SQLiteBindingStore.open(path: path, policy: .permissive())
        let after = try await onOwnThread { try snapshot(SQLiteConnection(path: path, access: .readOnly)) }
        #expect(after == before)
        #expect(try await store.register(token: tokens[0], kind: .liveActivityStart, serverId: "host-1", nowMs: t0) == .created)
        #expect(try await store.count() == tokens.count + 1)
        await store.close()
    }
}
