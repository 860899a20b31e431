import PushgateTesting
import Testing
@testable import PushgateStore
import PushgateTestSupport

/// The replay keys in PostgreSQL (docs/relay.md "Replay set"): expiry, forgetting, and sharing
/// between instances on one database, with no count row and no lock.
@Suite(.hangLimit(.minutes(1))) struct PostgreSQLReplaySetTests {
    private static func open(_ url: String) async throws -> PostgreSQLReplaySet {
        try await PostgreSQLReplaySet.open(url: PostgreSQLURL(url))
    }

    private let key = ReplayDigest("serverid.1764669600000.signature")

    @Test func anInsertedKeyIsHeldUntilItExpires() async throws {
        let set = try await Self.open(PostgreSQLTestServer.required().createDatabase())
        #expect(try await !set.contains(key, nowMs: 0))
        #expect(try await set.insert(key, expiresAtMs: 1_000))
        #expect(try await !set.insert(key, expiresAtMs: 1_000), "the second insert of a key loses")
        #expect(try await set.contains(key, nowMs: 999))
        #expect(try await !set.contains(key, nowMs: 1_000))
        #expect(try await set.keyCount() == 1, "expired keys count until purged")
        try await set.purge(nowMs: 1_000)
        #expect(try await set.keyCount() == 0)
        await set.close()
    }

    @Test func aForgottenKeyMayBeInsertedAgain() async throws {
        let set = try await Self.open(PostgreSQLTestServer.required().createDatabase())
        #expect(try await set.insert(key, expiresAtMs: 1_000))
        try await set.forget(key)
        #expect(try await !set.contains(key, nowMs: 0))
        #expect(try await set.insert(key, expiresAtMs: 1_000))
        await set.close()
    }

    @Test func racingInstancesAcceptAKeyExactlyOnce() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let sets = [try await Self.open(url), try await Self.open(url)]
        let key = key
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for attempt in 0 ..< 40 {
                group.addTask { try await sets[attempt % 2].insert(key, expiresAtMs: 60_000) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await sets[1].contains(key, nowMs: 5))
        for set in sets { await set.close() }
    }

    @Test func rowsHoldADigestAndNoCountRowIsKept() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let set = try await Self.open(url)
        _ = try await set.insert(key, expiresAtMs: 1_000)
        await set.close()
        let (stored, countTables) = try await onOwnThread {
            let connection = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: nil))
            return (try connection.texts("SELECT key FROM replay_keys", []),
                    try connection.integer("SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'replay_count'", []))
        }
        #expect(stored == [key.text])
        #expect(stored.first?.count == 22, "16 bytes in unpadded base64url")
        #expect(countTables == 0)
    }
}
