import Foundation
import PushgateTesting
import Testing
@testable import PushgateStore

@Suite struct SQLiteBindingStoreTests {
    private let t0: Int64 = 1_764_669_600_000
    private let token = String(repeating: "ab", count: 32)

    private func host(_ n: Int) -> String { "host-\(n)" }

    @Test func registerAndUnregisterOutcomes() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("relay.sqlite"))
        #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .notFound)
        #expect(try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0) == .added(evicted: 0))
        #expect(try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0 + 1) == .refreshed)
        #expect(try await store.unregister(token: token, kind: .alert, serverId: host(2)) == .boundToOthers)
        #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .removed)
        #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .notFound)
        #expect(try await store.count() == 0)
        await store.close()
    }

    @Test func aTokenOfTwoHostsStaysWithTheOtherAfterOneUnregisters() async throws {
        let store = try await SQLiteBindingStore.open(path: SQLiteConnection.memoryPath)
        _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
        _ = try await store.register(token: token, kind: .alert, serverId: host(2), nowMs: t0)
        #expect(try await store.boundTokens([token], kind: .alert, serverId: host(1)) == [token])
        #expect(try await store.boundTokens([token], kind: .alert, serverId: host(2)) == [token])
        #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .removed)
        #expect(try await store.boundTokens([token], kind: .alert, serverId: host(1)) == [])
        #expect(try await store.boundTokens([token], kind: .alert, serverId: host(2)) == [token])
        #expect(try await store.count() == 1)
    }

    @Test func theSeventeenthHostEvictsTheLeastRecentlyRegistered() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("relay.sqlite"))
        for n in 0 ..< 16 {
            #expect(try await store.register(token: token, kind: .alert, serverId: host(n), nowMs: t0 + Int64(n)) == .added(evicted: 0))
        }
        // Refreshing host 0 makes host 1 the least recently registered.
        #expect(try await store.register(token: token, kind: .alert, serverId: host(0), nowMs: t0 + 100) == .refreshed)
        #expect(try await store.register(token: token, kind: .alert, serverId: host(16), nowMs: t0 + 101) == .added(evicted: 1))
        #expect(try await store.register(token: token, kind: .alert, serverId: host(17), nowMs: t0 + 102) == .added(evicted: 1))
        var bound: [Int] = []
        for n in 0 ... 17 where try await !store.boundTokens([token], kind: .alert, serverId: host(n)).isEmpty {
            bound.append(n)
        }
        #expect(bound == [0] + Array(3 ... 17))
        #expect(try await store.count() == 1)
    }

    @Test func kindsAreKeptApart() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("relay.sqlite"))
        _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
        #expect(try await store.boundTokens([token], kind: .liveActivity, serverId: host(1)) == [])
        #expect(try await store.unregister(token: token, kind: .liveActivity, serverId: host(1)) == .notFound)
        #expect(try await store.register(token: token, kind: .liveActivity, serverId: host(2), nowMs: t0) == .added(evicted: 0))
        #expect(try await store.count() == 2)
        #expect(try await store.boundTokens([token], kind: .alert, serverId: host(2)) == [])
        #expect(try await store.deleteToken(token, kind: .alert) == 1)
        #expect(try await store.boundTokens([token], kind: .liveActivity, serverId: host(2)) == [token])
        #expect(try await store.count() == 1)
    }

    @Test func aNewTokenBeyondMaxTokensIsRefusedWhileKnownOnesReRegister() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("relay.sqlite"), maxTokens: 2)
        #expect(try await store.register(token: "aa", kind: .alert, serverId: host(1), nowMs: t0) == .added(evicted: 0))
        #expect(try await store.register(token: "bb", kind: .alert, serverId: host(1), nowMs: t0) == .added(evicted: 0))
        #expect(try await store.register(token: "cc", kind: .alert, serverId: host(1), nowMs: t0) == .tokenLimit)
        // The same text as the other kind is another token.
        #expect(try await store.register(token: "aa", kind: .liveActivity, serverId: host(1), nowMs: t0) == .tokenLimit)
        #expect(try await store.register(token: "aa", kind: .alert, serverId: host(1), nowMs: t0 + 1) == .refreshed)
        #expect(try await store.register(token: "aa", kind: .alert, serverId: host(2), nowMs: t0 + 1) == .added(evicted: 0))
        #expect(try await store.boundTokens(["cc"], kind: .alert, serverId: host(1)) == [])
        #expect(try await store.deleteToken("bb", kind: .alert) == 1)
        #expect(try await store.register(token: "cc", kind: .alert, serverId: host(1), nowMs: t0) == .added(evicted: 0))
        #expect(try await store.count() == 2)
    }

    @Test func deleteTokenRemovesEveryBindingOfIt() async throws {
        let store = try await SQLiteBindingStore.open(path: SQLiteConnection.memoryPath)
        for n in 1 ... 3 { _ = try await store.register(token: token, kind: .alert, serverId: host(n), nowMs: t0) }
        _ = try await store.register(token: "other", kind: .alert, serverId: host(1), nowMs: t0)
        #expect(try await store.deleteToken(token, kind: .alert) == 3)
        for n in 1 ... 3 { #expect(try await store.boundTokens([token], kind: .alert, serverId: host(n)) == []) }
        #expect(try await store.deleteToken(token, kind: .alert) == 0)
        #expect(try await store.boundTokens([token, "other"], kind: .alert, serverId: host(1)) == ["other"])
        #expect(try await store.count() == 1)
    }

    @Test func removeBindingDropsOnlyThatHost() async throws {
        let store = try await SQLiteBindingStore.open(path: SQLiteConnection.memoryPath)
        _ = try await store.register(token: token, kind: .liveActivity, serverId: host(1), nowMs: t0)
        _ = try await store.register(token: token, kind: .liveActivity, serverId: host(2), nowMs: t0)
        #expect(try await store.removeBinding(token: token, kind: .liveActivity, serverId: host(1)))
        #expect(try await !store.removeBinding(token: token, kind: .liveActivity, serverId: host(1)))
        #expect(try await store.boundTokens([token], kind: .liveActivity, serverId: host(2)) == [token])
        #expect(try await store.count() == 1)
        #expect(try await store.removeBinding(token: token, kind: .liveActivity, serverId: host(2)))
        #expect(try await store.count() == 0)
    }

    @Test func boundTokensAnswersLongListsWithDuplicates() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("relay.sqlite"))
        let tokens = (0 ..< 300).map { String(format: "%064x", $0) }
        for (n, token) in tokens.enumerated() where n % 3 == 0 {
            _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
        }
        let expected = Set(tokens.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        #expect(try await store.boundTokens(tokens + tokens, kind: .alert, serverId: host(1)) == expected)
        #expect(try await store.boundTokens(Array(tokens.prefix(5)), kind: .alert, serverId: host(1)) == [tokens[0], tokens[3]])
        #expect(try await store.boundTokens([], kind: .alert, serverId: host(1)) == [])
        #expect(try await store.boundTokens(tokens, kind: .alert, serverId: host(2)) == [])
    }

    @Test func theTokenCounterMatchesARecountAfterMixedWrites() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("relay.sqlite")
        let store = try await SQLiteBindingStore.open(path: path)
        var generator = SplitMix64(seed: 7)
        for step in 0 ..< 400 {
            let token = "t\(generator.next() % 3)"
            let kind: BindingKind = generator.next() % 2 == 0 ? .alert : .liveActivity
            let server = host(Int(generator.next() % 24))
            switch generator.next() % 16 {
            case 0 ..< 12: _ = try await store.register(token: token, kind: kind, serverId: server, nowMs: t0 + Int64(step))
            case 12 ..< 15: _ = try await store.unregister(token: token, kind: kind, serverId: server)
            default: try await store.deleteToken(token, kind: kind)
            }
        }
        let connection = try SQLiteConnection(path: path, access: .readOnly)
        let recount = try connection.withStatement("SELECT count(*) FROM (SELECT DISTINCT token, kind FROM bindings)") {
            try $0.step()
            return Int($0.int64(at: 0))
        }
        let maxPerToken = try connection.withStatement("SELECT max(n) FROM (SELECT count(*) AS n FROM bindings GROUP BY token, kind)") {
            try $0.step()
            return Int($0.int64(at: 0))
        }
        #expect(recount > 0)
        #expect(try await store.count() == recount)
        #expect(maxPerToken == BindingLimits.hostsPerToken)
    }

    @Test func aReturnedRegisterIsCommittedBeforeTheStoreCloses() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("relay.sqlite")
        let store = try await SQLiteBindingStore.open(path: path)
        _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
        // A separate connection sees only committed data: the row is in the WAL, not in a buffer.
        let other = try SQLiteConnection(path: path, access: .readOnly)
        let rows = try other.withStatement("SELECT server_id, registered_at FROM bindings WHERE token = ?1") { statement in
            try statement.bind(token, at: 1)
            var rows: [String] = []
            while try statement.step() { rows.append("\(statement.string(at: 0) ?? "") \(statement.int64(at: 1))") }
            return rows
        }
        #expect(rows == ["\(host(1)) \(t0)"])
        await store.close()
    }

    @Test func concurrentRegistersShareTransactionsAndSurviveReopening() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("relay.sqlite")
        let store = try await SQLiteBindingStore.open(path: path)
        let tokens = (0 ..< 500).map { String(format: "%064x", $0) }
        let outcomes = try await withThrowingTaskGroup(of: RegisterOutcome.self) { group in
            for token in tokens {
                group.addTask { try await store.register(token: token, kind: .alert, serverId: "host-1", nowMs: self.t0) }
            }
            return try await group.reduce(into: [RegisterOutcome]()) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: .added(evicted: 0), count: 500))
        #expect(store.commitCount < 50, "500 writes took \(store.commitCount) transactions")
        await store.close()

        let reopened = try await SQLiteBindingStore.open(path: path)
        #expect(try await reopened.count() == 500)
        #expect(try await reopened.boundTokens(tokens, kind: .alert, serverId: "host-1") == Set(tokens))
        await reopened.close()
    }

    @Test func aDatabaseFromANewerBuildIsRefused() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("relay.sqlite")
        try await SQLiteBindingStore.open(path: path).close()
        try SQLiteConnection(path: path).setUserVersion(99)
        await #expect(throws: MigrationError.self) { try await SQLiteBindingStore.open(path: path) }
    }

    @Test func createsTheDatabaseDirectory() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("data/relay.sqlite"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.file("data"))
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        await store.close()
    }

    @Test func aClosedStoreRefusesCalls() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("relay.sqlite"))
        await store.close()
        await #expect(throws: StoreClosedError.self) {
            try await store.register(token: self.token, kind: .alert, serverId: "h", nowMs: self.t0)
        }
        await #expect(throws: StoreClosedError.self) { try await store.count() }
    }
}
