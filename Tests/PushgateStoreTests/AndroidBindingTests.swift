import PushgateTesting
import Testing
@testable import PushgateStore

/// The `android` binding kind (docs/relay.md "Android tokens"): a `send` looks each token up as
/// `alert` or `android` at once, and a database from before the kind existed takes it on.
@Suite struct AndroidBindingTests {
    private let t0: Int64 = 1_764_669_600_000

    @Test(arguments: StoreEngine.allCases)
    func aSendsLookupGivesEachTokenTheKindThisHostBoundItWith(engine: StoreEngine) async throws {
        let t0 = t0
        try await engine.withStore { store, _ throws in
            // More tokens than one lookup statement takes (BindingSQL.lookupSlots): it runs in chunks.
            let tokens = (0 ..< 300).map { String(format: "%064x", $0) }
            var bindings: [(token: String, kind: BindingKind, serverId: String)] = []
            for (n, token) in tokens.enumerated() {
                switch n % 5 {
                case 0: bindings.append((token, .android, "host-1"))
                case 1: bindings += [(token, .android, "host-1"), (token, .alert, "host-1")]
                case 2: bindings.append((token, .alert, "host-1"))
                case 3: bindings.append((token, .liveActivity, "host-1"))
                default: bindings.append((token, .android, "host-2"))
                }
            }
            // Concurrent registers share group commits, which keeps 360 writes quick.
            try await withThrowingTaskGroup(of: RegisterOutcome.self) { group in
                for binding in bindings {
                    group.addTask { try await store.register(token: binding.token, kind: binding.kind, serverId: binding.serverId, nowMs: t0) }
                }
                for try await outcome in group { #expect(outcome == .created, "kinds apart: every (token, kind) is new") }
            }
            func expected(_ kinds: [Int: BindingKind]) -> [String: BindingKind] {
                Dictionary(uniqueKeysWithValues: tokens.enumerated().compactMap { n, token in kinds[n % 5].map { (token, $0) } })
            }

            let lookup = try await store.boundTokens(tokens + tokens, kinds: [.alert, .android], serverId: "host-1", nowMs: t0)
            #expect(lookup == expected([0: .android, 1: .alert, 2: .alert]))
            // A token bound both ways maps to the first kind asked for, whichever row comes back first.
            let androidFirst = try await store.boundTokens(tokens, kinds: [.android, .alert], serverId: "host-1", nowMs: t0)
            #expect(androidFirst == expected([0: .android, 1: .android, 2: .alert]))
            let otherHost = try await store.boundTokens(tokens, kinds: [.alert, .android], serverId: "host-2", nowMs: t0)
            #expect(otherHost == expected([4: .android]))
            #expect(try await store.count() == 360)
        }
    }

    /// Migration 6 makes the table again to widen its CHECK: no row may be lost on the way.
    @Test func aVersion5DatabaseKeepsEveryBindingAndCountThroughMigration6() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite")
        let t0 = t0
        let tokens = (0 ..< 40).map { String(format: "%064x", $0) }
        // 40 alert tokens of host-1, every second one of host-2 too, every third a Live Activity token of host-1.
        let (rows, pairs): (Int, Int) = (40 + 20 + 14, 40 + 14)
        let snapshot = { @Sendable (connection: SQLiteConnection) throws -> [String] in
            try connection.texts("SELECT token || ' ' || kind || ' ' || server_id || ' ' || registered_at FROM bindings ORDER BY 1", [])
                + connection.texts("SELECT server_id || ' ' || tokens FROM host_token_count ORDER BY 1", [])
        }
        // On a thread of its own, as the store's queues do; expectations are checked back on the test's task.
        let (applied, androidAtVersion5, before) = try await onOwnThread { () throws -> ([Int32], Result<RegisterOutcome, any Error>, [String]) in
            let connection = try SQLiteConnection(path: path)
            let applied = try Migrator.migrate(connection, with: Array(RelaySchema.migrations.prefix(5)))
            func register(_ token: String, _ kind: BindingKind, _ serverId: String, at nowMs: Int64) throws -> RegisterOutcome {
                try connection.writeTransaction {
                    try BindingRules.register(token: token, kind: kind, serverId: serverId, nowMs: nowMs, mayAddToken: true,
                                               policy: .permissive(), on: connection)
                }
            }
            for (n, token) in tokens.enumerated() {
                _ = try register(token, .alert, "host-1", at: t0 + Int64(n))
                if n % 2 == 0 { _ = try register(token, .alert, "host-2", at: t0 + Int64(n)) }
                if n % 3 == 0 { _ = try register(token, .liveActivity, "host-1", at: t0) }
            }
            let android = Result { try register(tokens[0], .android, "host-1", at: t0) }
            return (applied, android, try snapshot(connection))
        }
        #expect(applied == [1, 2, 3, 4, 5])
        // The proof that migration 6 is what admits the kind: version 5's CHECK refuses it.
        #expect(throws: SQLiteError.self) { try androidAtVersion5.get() }
        #expect(before.count == rows + 2, "the bindings, then the two hosts' counts")

        let store = try await SQLiteBindingStore.open(path: path, policy: .permissive())
        #expect(try await store.count() == pairs)
        let (after, version) = try await onOwnThread { () throws -> ([String], Int) in
            let connection = try SQLiteConnection(path: path, access: .readOnly)
            return (try snapshot(connection), try connection.userVersion())
        }
        #expect(version == Int(RelaySchema.migrations.last?.version ?? 0))
        #expect(after == before)

        #expect(try await store.register(token: tokens[0], kind: .android, serverId: "host-1", nowMs: t0) == .created)
        #expect(try await store.register(token: tokens[1], kind: .android, serverId: "host-3", nowMs: t0) == .created)
        #expect(try await store.count() == pairs + 2)
        #expect(try await store.boundTokens([tokens[0], tokens[1]], kinds: [.alert, .android], serverId: "host-1", nowMs: t0)
                == [tokens[0]: .alert, tokens[1]: .alert])
        #expect(try await store.boundTokens([tokens[0], tokens[1]], kinds: [.alert, .android], serverId: "host-3", nowMs: t0)
                == [tokens[1]: .android])
        await store.close()
    }
}
