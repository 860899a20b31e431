import PushgateTesting
import Testing
@testable import PushgateStore
import PushgateTestSupport

/// What only the PostgreSQL store does: several stores (relay instances) on one database,
/// durable commits whatever the server's default, a restart of the server's side of a
/// connection. The shared binding rules are in ``BindingStoreContractTests``.
@Suite(.hangLimit(.minutes(1))) struct PostgreSQLBindingStoreTests {
    private let t0: Int64 = 1_764_669_600_000

    private static func open(_ url: String, policy: BindingPolicy = .permissive()) async throws -> PostgreSQLBindingStore {
        try await PostgreSQLBindingStore.open(url: PostgreSQLURL(url), policy: policy)
    }

    @Test func twoStoresOnOneDatabaseShareBindingsAndTheTokenLimit() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let first = try await Self.open(url, policy: .permissive(maxTokens: 2))
        let second = try await Self.open(url, policy: .permissive(maxTokens: 2))
        #expect(try await first.register(token: "aa", kind: .alert, serverId: "host-1", nowMs: t0) == .created)
        #expect(try await second.register(token: "bb", kind: .alert, serverId: "host-2", nowMs: t0) == .created)
        #expect(try await first.register(token: "cc", kind: .alert, serverId: "host-1", nowMs: t0) == .tokenLimit)
        #expect(try await second.boundTokens(["aa", "bb"], kind: .alert, serverId: "host-1", nowMs: t0) == ["aa"])
        #expect(try await second.unregister(token: "aa", kind: .alert, serverId: "host-2") == .boundToOthers)
        #expect(try await first.count() == 2)
        #expect(try await second.count() == 2)
        await first.close()
        await second.close()
    }

    @Test func concurrentWritesFromTwoStoresKeepTheRulesExact() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let stores = [try await Self.open(url), try await Self.open(url)]
        // Both stores race on the same few tokens: new tokens, evictions and unregisters at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    var generator = SplitMix64(seed: UInt64(index + 1))
                    for step in 0 ..< 300 {
                        let token = "t\(generator.next() % 4)"
                        let server = "host-\(generator.next() % 20)"
                        if generator.next() % 5 == 0 {
                            _ = try await store.unregister(token: token, kind: .alert, serverId: server)
                        } else {
                            _ = try await store.register(token: token, kind: .alert, serverId: server, nowMs: self.t0 + Int64(step))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (recount, maxPerToken) = try await onOwnThread {
            let connection = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 1))
            return (try connection.integer("SELECT count(DISTINCT token) FROM bindings", []),
                    try connection.integer("SELECT max(n) FROM (SELECT count(*) AS n FROM bindings GROUP BY token) AS counts", []))
        }
        #expect(try await stores[0].count() == Int(recount ?? -1))
        #expect((maxPerToken ?? 0) <= Int64(BindingLimits.hostsPerToken))
        for store in stores { await store.close() }
    }

    @Test func theWriterCommitsDurablyEvenWhenTheDatabaseDefaultIsOff() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let setting = try await onOwnThread {
            let admin = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 1))
            try admin.execute("ALTER ROLE \(PostgreSQLTestServer.user) IN DATABASE \(url.split(separator: "/").last!) SET synchronous_commit = off")
            let writer = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(
                writeLockKey: 1, setup: [PostgreSQLBindingStore.durableCommits]))
            return (try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 1))
                        .texts("SELECT current_setting('synchronous_commit')", []),
                    try writer.texts("SELECT current_setting('synchronous_commit')", []))
        }
        #expect(setting.0 == ["off"], "the database default applies to other sessions")
        #expect(setting.1 == ["on"])
    }

    @Test func storeConnectionsTheServerDroppedAreReplaced() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let store = try await Self.open(url)
        _ = try await store.register(token: "aa", kind: .alert, serverId: "host-1", nowMs: t0)
        let terminated = try await onOwnThread {
            let admin = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 1))
            return try admin.texts("""
                SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                WHERE application_name = ?1 AND datname = current_database()
                """, [.text(PostgreSQLBindingStore.applicationName)])
        }
        #expect(terminated == ["true", "true", "true"], "the writer and two readers")
        #expect(try await store.register(token: "bb", kind: .alert, serverId: "host-1", nowMs: t0) == .created)
        #expect(try await store.boundTokens(["aa", "bb"], kind: .alert, serverId: "host-1", nowMs: t0) == ["aa", "bb"])
        #expect(try await store.count() == 2)
        await store.close()
    }

    @Test func theSchemaIsAtItsLastMigration() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        try await Self.open(url).close()
        let version = try await onOwnThread {
            try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 1)).schemaVersion()
        }
        #expect(version == PostgreSQLSchema.migrations.count)
    }
}
