import Foundation
import PushgateTesting
import Testing
@testable import PushgateStore

/// The binding rules (protocol/signed-relay.md §3, §5) and the store's guarantees, checked on every
/// ``StoreEngine``.
@Suite struct BindingStoreContractTests {
    private let t0: Int64 = 1_764_669_600_000
    private let token = String(repeating: "ab", count: 32)

    private func host(_ n: Int) -> String { "host-\(n)" }

    @Test(arguments: StoreEngine.allCases)
    func registerAndUnregisterOutcomes(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .notFound)
            #expect(try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0) == .created)
            #expect(try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0 + 1) == .refreshed)
            #expect(try await store.unregister(token: token, kind: .alert, serverId: host(2)) == .boundToOthers)
            #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .removed)
            #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .notFound)
            #expect(try await store.count() == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aTokenOfTwoHostsStaysWithTheOtherAfterOneUnregisters(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
            _ = try await store.register(token: token, kind: .alert, serverId: host(2), nowMs: t0)
            #expect(try await store.boundTokens([token], kind: .alert, serverId: host(1), nowMs: t0) == [token])
            #expect(try await store.boundTokens([token], kind: .alert, serverId: host(2), nowMs: t0) == [token])
            #expect(try await store.unregister(token: token, kind: .alert, serverId: host(1)) == .removed)
            #expect(try await store.boundTokens([token], kind: .alert, serverId: host(1), nowMs: t0) == [])
            #expect(try await store.boundTokens([token], kind: .alert, serverId: host(2), nowMs: t0) == [token])
            #expect(try await store.count() == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theSeventeenthHostEvictsTheLeastRecentlyRegistered(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            for n in 0 ..< 16 {
                #expect(try await store.register(token: token, kind: .alert, serverId: host(n), nowMs: t0 + Int64(n))
                        == (n == 0 ? .created : .added(evicted: 0)))
            }
            // Refreshing host 0 makes host 1 the least recently registered.
            #expect(try await store.register(token: token, kind: .alert, serverId: host(0), nowMs: t0 + 100) == .refreshed)
            #expect(try await store.register(token: token, kind: .alert, serverId: host(16), nowMs: t0 + 101) == .added(evicted: 1))
            #expect(try await store.register(token: token, kind: .alert, serverId: host(17), nowMs: t0 + 102) == .added(evicted: 1))
            var bound: [Int] = []
            for n in 0 ... 17 where try await !store.boundTokens([token], kind: .alert, serverId: host(n), nowMs: t0).isEmpty {
                bound.append(n)
            }
            #expect(bound == [0] + Array(3 ... 17))
            #expect(try await store.count() == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func evictionTiesFallToTheSmallerServerIdInByteOrder(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            // Byte order puts "B…" before "a…"; an English collation would not.
            let servers = ["a-host", "B-host"] + (1 ..< 15).map { "m-host-\($0)" }
            for server in servers { _ = try await store.register(token: token, kind: .alert, serverId: server, nowMs: t0) }
            #expect(try await store.register(token: token, kind: .alert, serverId: "z-host", nowMs: t0) == .added(evicted: 1))
            #expect(try await store.boundTokens([token], kind: .alert, serverId: "B-host", nowMs: t0) == [])
            #expect(try await store.boundTokens([token], kind: .alert, serverId: "a-host", nowMs: t0) == [token])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func kindsAreKeptApart(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
            #expect(try await store.boundTokens([token], kind: .liveActivity, serverId: host(1), nowMs: t0) == [])
            #expect(try await store.unregister(token: token, kind: .liveActivity, serverId: host(1)) == .notFound)
            #expect(try await store.register(token: token, kind: .liveActivity, serverId: host(2), nowMs: t0) == .created)
            #expect(try await store.count() == 2)
            #expect(try await store.boundTokens([token], kind: .alert, serverId: host(2), nowMs: t0) == [])
            #expect(try await store.deleteToken(token, kind: .alert) == 1)
            #expect(try await store.boundTokens([token], kind: .liveActivity, serverId: host(2), nowMs: t0) == [token])
            #expect(try await store.count() == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aNewTokenBeyondMaxTokensIsRefusedWhileKnownOnesReRegister(engine: StoreEngine) async throws {
        try await engine.withStore(policy: .permissive(maxTokens: 2)) { store, _ throws in
            #expect(try await store.register(token: "aa", kind: .alert, serverId: host(1), nowMs: t0) == .created)
            #expect(try await store.register(token: "bb", kind: .alert, serverId: host(1), nowMs: t0) == .created)
            #expect(try await store.register(token: "cc", kind: .alert, serverId: host(1), nowMs: t0) == .tokenLimit)
            // The same text as the other kind is another token.
            #expect(try await store.register(token: "aa", kind: .liveActivity, serverId: host(1), nowMs: t0) == .tokenLimit)
            #expect(try await store.register(token: "aa", kind: .alert, serverId: host(1), nowMs: t0 + 1) == .refreshed)
            #expect(try await store.register(token: "aa", kind: .alert, serverId: host(2), nowMs: t0 + 1) == .added(evicted: 0))
            #expect(try await store.boundTokens(["cc"], kind: .alert, serverId: host(1), nowMs: t0) == [])
            #expect(try await store.deleteToken("bb", kind: .alert) == 1)
            #expect(try await store.register(token: "cc", kind: .alert, serverId: host(1), nowMs: t0) == .created)
            #expect(try await store.count() == 2)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func deleteTokenRemovesEveryBindingOfIt(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            for n in 1 ... 3 { _ = try await store.register(token: token, kind: .alert, serverId: host(n), nowMs: t0) }
            _ = try await store.register(token: "other", kind: .alert, serverId: host(1), nowMs: t0)
            #expect(try await store.deleteToken(token, kind: .alert) == 3)
            for n in 1 ... 3 { #expect(try await store.boundTokens([token], kind: .alert, serverId: host(n), nowMs: t0) == []) }
            #expect(try await store.deleteToken(token, kind: .alert) == 0)
            #expect(try await store.boundTokens([token, "other"], kind: .alert, serverId: host(1), nowMs: t0) == ["other"])
            #expect(try await store.count() == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func removeBindingDropsOnlyThatHost(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            _ = try await store.register(token: token, kind: .liveActivity, serverId: host(1), nowMs: t0)
            _ = try await store.register(token: token, kind: .liveActivity, serverId: host(2), nowMs: t0)
            #expect(try await store.removeBinding(token: token, kind: .liveActivity, serverId: host(1)))
            #expect(try await !store.removeBinding(token: token, kind: .liveActivity, serverId: host(1)))
            #expect(try await store.boundTokens([token], kind: .liveActivity, serverId: host(2), nowMs: t0) == [token])
            #expect(try await store.count() == 1)
            #expect(try await store.removeBinding(token: token, kind: .liveActivity, serverId: host(2)))
            #expect(try await store.count() == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func boundTokensAnswersLongListsWithDuplicates(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            let tokens = (0 ..< 300).map { String(format: "%064x", $0) }
            for (n, token) in tokens.enumerated() where n % 3 == 0 {
                _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
            }
            let expected = Set(tokens.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
            #expect(try await store.boundTokens(tokens + tokens, kind: .alert, serverId: host(1), nowMs: t0) == expected)
            #expect(try await store.boundTokens(Array(tokens.prefix(5)), kind: .alert, serverId: host(1), nowMs: t0) == [tokens[0], tokens[3]])
            #expect(try await store.boundTokens([], kind: .alert, serverId: host(1), nowMs: t0) == [])
            #expect(try await store.boundTokens(tokens, kind: .alert, serverId: host(2), nowMs: t0) == [])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theTokenCounterMatchesARecountAfterMixedWrites(engine: StoreEngine) async throws {
        try await engine.withStore { store, database throws in
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
            let (recount, maxPerToken) = try await database.withConnection { connection in
                (try connection.integer("SELECT count(*) FROM (SELECT DISTINCT token, kind FROM bindings) AS pairs", []),
                 try connection.integer("SELECT max(n) FROM (SELECT count(*) AS n FROM bindings GROUP BY token, kind) AS counts", []))
            }
            #expect((recount ?? 0) > 0)
            #expect(try await store.count() == Int(recount ?? -1))
            #expect(maxPerToken == Int64(BindingLimits.hostsPerToken))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aReturnedRegisterIsCommittedBeforeTheStoreCloses(engine: StoreEngine) async throws {
        try await engine.withStore { store, database throws in
            _ = try await store.register(token: token, kind: .alert, serverId: host(1), nowMs: t0)
            // A separate connection sees only committed data: the row is in the log, not in a buffer.
            let token = token
            let rows = try await database.withConnection { connection in
                try connection.texts("SELECT server_id || ' ' || registered_at FROM bindings WHERE token = ?1", [.text(token)])
            }
            #expect(rows == ["\(host(1)) \(t0)"])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func concurrentRegistersShareTransactionsAndSurviveReopening(engine: StoreEngine) async throws {
        let database = try await engine.makeDatabase()
        let store = try await database.open()
        let tokens = (0 ..< 500).map { String(format: "%064x", $0) }
        let outcomes = try await withThrowingTaskGroup(of: RegisterOutcome.self) { group in
            for token in tokens {
                group.addTask { try await store.register(token: token, kind: .alert, serverId: "host-1", nowMs: self.t0) }
            }
            return try await group.reduce(into: [RegisterOutcome]()) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: .created, count: 500))
        let commits = database.commitCount(of: store)
        #expect(commits > 0 && commits < 50, "500 writes took \(commits) transactions")
        try await store.close()

        let reopened = try await database.open()
        #expect(try await reopened.count() == 500)
        #expect(try await reopened.boundTokens(tokens, kind: .alert, serverId: "host-1", nowMs: t0) == Set(tokens))
        try await reopened.close()
        withExtendedLifetime(database) {}
    }

    @Test(arguments: StoreEngine.allCases)
    func aDatabaseFromANewerBuildIsRefused(engine: StoreEngine) async throws {
        let database = try await engine.makeDatabase()
        try await database.open().close()
        try await database.withConnection { try $0.setSchemaVersion(99) }
        await #expect(throws: MigrationError.self) { try await database.open() }
    }

    @Test(arguments: StoreEngine.allCases)
    func aClosedStoreRefusesCalls(engine: StoreEngine) async throws {
        let store = try await engine.makeDatabase().open()
        try await store.close()
        await #expect(throws: StoreClosedError.self) {
            try await store.register(token: self.token, kind: .alert, serverId: "h", nowMs: self.t0)
        }
        await #expect(throws: StoreClosedError.self) { try await store.count() }
    }
}
