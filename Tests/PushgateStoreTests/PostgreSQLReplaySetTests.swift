import PushgateTesting
import Testing
@testable import PushgateStore

/// The replay set in PostgreSQL: the in-memory set's rules (relay-protocol.md §2), and sharing
/// between instances on one database.
@Suite(.timeLimit(.minutes(1))) struct PostgreSQLReplaySetTests {
    private static func open(_ url: String, ttlMs: Int64 = 1_000, maxEntries: Int = 10) async throws -> PostgreSQLReplaySet {
        try await PostgreSQLReplaySet.open(url: PostgreSQLURL(url), ttlMs: ttlMs, maxEntries: maxEntries)
    }

    @Test func aSeenKeyIsAReplayUntilItExpires() async throws {
        let set = try await Self.open(PostgreSQLTestServer.required().createDatabase())
        #expect(try await set.record("k", nowMs: 0) == .fresh)
        #expect(try await set.record("k", nowMs: 999) == .replay)
        #expect(try await set.record("k", nowMs: 1_000) == .fresh)
        #expect(try await set.keyCount() == 1)
        await set.close()
    }

    @Test func aFullSetRefusesNewKeysUntilOldOnesExpire() async throws {
        let set = try await Self.open(PostgreSQLTestServer.required().createDatabase(), maxEntries: 2)
        #expect(try await set.record("a", nowMs: 0) == .fresh)
        #expect(try await set.record("b", nowMs: 1) == .fresh)
        #expect(try await set.record("c", nowMs: 2) == .full)
        #expect(try await set.record("a", nowMs: 2) == .replay)
        #expect(try await set.record("c", nowMs: 1_000) == .fresh, "a expired")
        #expect(try await set.keyCount() == 2)
        await set.close()
    }

    @Test func forgetAndPurgeFreeRoom() async throws {
        let set = try await Self.open(PostgreSQLTestServer.required().createDatabase(), maxEntries: 2)
        _ = try await set.record("a", nowMs: 0)
        _ = try await set.record("b", nowMs: 500)
        try await set.forget("a")
        #expect(try await set.keyCount() == 1)
        #expect(try await set.record("a", nowMs: 600) == .fresh, "a forgotten request may be retried")
        try await set.purge(nowMs: 1_500)
        #expect(try await set.keyCount() == 1, "b expired at 1 500, a lives until 1 600")
        #expect(try await set.record("a", nowMs: 1_500) == .replay)
        await set.close()
    }

    @Test func aKeyRecordedByOneInstanceIsAReplayAtTheOther() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let first = try await Self.open(url, maxEntries: 3)
        let second = try await Self.open(url, maxEntries: 3)
        #expect(try await first.record("send.server.1.sig", nowMs: 0) == .fresh)
        #expect(try await second.record("send.server.1.sig", nowMs: 10) == .replay)
        _ = try await second.record("b", nowMs: 10)
        _ = try await first.record("c", nowMs: 10)
        #expect(try await second.record("d", nowMs: 10) == .full, "the cap counts both instances' keys")
        await first.close()
        await second.close()
    }

    @Test func racingInstancesAcceptAKeyExactlyOnce() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let sets = [try await Self.open(url, ttlMs: 60_000, maxEntries: 1_000), try await Self.open(url, ttlMs: 60_000, maxEntries: 1_000)]
        let outcomes = try await withThrowingTaskGroup(of: ReplayOutcome.self) { group in
            for attempt in 0 ..< 40 {
                group.addTask { try await sets[attempt % 2].record("the-key", nowMs: 5) }
            }
            return try await group.reduce(into: [ReplayOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .fresh }.count == 1)
        #expect(outcomes.filter { $0 == .replay }.count == 39)
        for set in sets { await set.close() }
    }

    @Test func rowsHoldADigestNotTheKey() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let set = try await Self.open(url)
        let key = "send.serverid.1764669600000.signature-bytes"
        _ = try await set.record(key, nowMs: 0)
        await set.close()
        let stored = try await onOwnThread {
            try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 1)).texts("SELECT key FROM replay_keys", [])
        }
        #expect(stored.count == 1)
        #expect(stored.first?.count == 43)
        #expect(stored.first?.contains("signature") == false)
    }
}
