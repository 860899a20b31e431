import Foundation
import Testing
@testable import PushgateStore
import PushgateTestSupport

/// The caps of ``BindingPolicy`` (docs/relay.md "Bindings"), checked on every ``StoreEngine``.
@Suite(.hangLimit(.minutes(1))) struct BindingPolicyContractTests {
    private let t0: Int64 = 1_764_669_600_000
    private let day = BindingPolicy.admissionWindowMs
    private func token(_ n: Int) -> String { String(format: "%064x", n) }

    @Test(arguments: StoreEngine.allCases)
    func aHostHoldsAtMostItsQuotaOfTokens(engine: StoreEngine) async throws {
        var policy = BindingPolicy.permissive()
        policy.maxTokensPerHost = 2
        try await engine.withStore(policy: policy) { store, _ throws in
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "h", nowMs: t0) == .created)
            #expect(try await store.register(token: token(2), kind: .liveActivity, serverId: "h", nowMs: t0) == .created)
            #expect(try await store.register(token: token(3), kind: .alert, serverId: "h", nowMs: t0) == .hostTokenLimit)
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "h", nowMs: t0 + 1) == .refreshed)
            #expect(try await store.register(token: token(3), kind: .alert, serverId: "other", nowMs: t0) == .created)
            #expect(try await store.unregister(token: token(1), kind: .alert, serverId: "h") == .removed)
            #expect(try await store.register(token: token(3), kind: .alert, serverId: "h", nowMs: t0) == .added(evicted: 0))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aNewTokenNeedsTheCallersBudgetAKnownOneDoesNot(engine: StoreEngine) async throws {
        try await engine.withStore { store, _ throws in
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "a", nowMs: t0, mayAddToken: false) == .newTokenRefused)
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "a", nowMs: t0) == .created)
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "b", nowMs: t0, mayAddToken: false) == .added(evicted: 0))
            #expect(try await store.count() == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func protectedBindingsAreNeverEvictedAndNewHostsAreCountedPerDay(engine: StoreEngine) async throws {
        var policy = BindingPolicy.permissive()
        policy.protectMs = day
        policy.newBindingsPerDay = 15
        try await engine.withStore(policy: policy) { store, _ throws in
            for n in 0 ..< 16 { _ = try await store.register(token: token(1), kind: .alert, serverId: "h\(n)", nowMs: t0 + Int64(n)) }
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "new", nowMs: t0 + day) == .bindingLimit,
                    "fifteen hosts joined within the day")
            for n in 0 ..< 16 { _ = try await store.register(token: token(1), kind: .alert, serverId: "h\(n)", nowMs: t0 + day + 16) }
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "new", nowMs: t0 + day + 17) == .bindingLimit,
                    "every binding refreshed within the day")
            for n in 1 ..< 16 { _ = try await store.register(token: token(1), kind: .alert, serverId: "h\(n)", nowMs: t0 + 2 * day + 17) }
            let later = t0 + 2 * day + 18
            #expect(try await store.register(token: token(1), kind: .alert, serverId: "new", nowMs: later) == .added(evicted: 1))
            #expect(try await store.boundTokens([token(1)], kind: .alert, serverId: "h0", nowMs: later) == [])
            #expect(try await store.boundTokens([token(1)], kind: .alert, serverId: "h1", nowMs: later) == [token(1)])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func staleBindingsStopDeliveringAndAreSweptAndClearForgetsAdmissions(engine: StoreEngine) async throws {
        var policy = BindingPolicy.permissive()
        policy.ttlMs = day
        policy.newBindingsPerDay = 1
        try await engine.withStore(policy: policy) { store, _ throws in
            _ = try await store.register(token: token(1), kind: .alert, serverId: "a", nowMs: t0)
            _ = try await store.register(token: token(2), kind: .alert, serverId: "a", nowMs: t0 + day / 2)
            #expect(try await store.boundTokens([token(1)], kind: .alert, serverId: "a", nowMs: t0 + day) == [token(1)], "a day old exactly")
            #expect(try await store.boundTokens([token(1), token(2)], kind: .alert, serverId: "a", nowMs: t0 + day + 1) == [token(2)])
            #expect(try await store.sweep(nowMs: t0 + day + 1) == 1)
            #expect(try await store.count() == 1)
            #expect(try await store.bindings(of: token(2)).map(\.serverId) == ["a"])
            #expect(try await store.register(token: token(2), kind: .alert, serverId: "c", nowMs: t0 + day) == .added(evicted: 0))
            #expect(try await store.register(token: token(2), kind: .alert, serverId: "b", nowMs: t0 + day) == .bindingLimit)
            #expect(try await store.clear(token: token(2)) == 2)
            #expect(try await store.register(token: token(2), kind: .alert, serverId: "b", nowMs: t0 + day) == .created)
        }
    }
}
