import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// protocol/signed-relay.md §10 lines 5–7, 15, 24 and 25.
@Suite(.hangLimit(.minutes(1))) struct BindingConformanceTests {
    @Test func sendDeliversOnlyBoundTokensAndNeverRevealsAServerId() async throws {
        let harness = try await RelayHarness()
        let hostA = harness.host(), hostB = harness.host()
        let mine = TestToken.make(), foreign = TestToken.make()
        #expect(try await hostA.registerToken(mine).status == 200)
        #expect(try await hostB.registerToken(foreign).status == 200)
        let reply = try await hostA.send(tokens: [mine, foreign], title: "Ready")
        #expect(reply.results == [.init(token: mine, ok: true, drop: false), .init(token: foreign, ok: false, drop: false, reason: "not_bound", retryable: true)])
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(!text.contains(hostA.key.publicKey.serverId) && !text.contains(hostB.key.publicKey.serverId))
        #expect(harness.received(foreign).isEmpty && harness.received(mine).count == 1)
        #expect(await harness.stopAndFindLeaks().isEmpty)
    }

    @Test func tokenSharedByTwoHostsSurvivesOneUnregister() async throws {
        let harness = try await RelayHarness()
        let hostA = harness.host(), hostB = harness.host()
        let token = TestToken.make()
        _ = try await hostA.registerToken(token)
        _ = try await hostB.registerToken(token)
        #expect(try await hostA.send(tokens: [token], title: "A").results.map(\.ok) == [true])
        #expect(try await hostB.send(tokens: [token], title: "B").results.map(\.ok) == [true])
        #expect(try await hostA.unregisterToken(token).status == 200)
        #expect(try await hostA.send(tokens: [token], title: "A").results.map(\.ok) == [false])
        #expect(try await hostB.send(tokens: [token], title: "B").results.map(\.ok) == [true])
        #expect(try await hostA.unregisterToken(TestToken.make()).status == 200, "unknown token → 200")
        await harness.stop()
    }

    @Test func atSixteenHostsOnlyABindingNotRefreshedForADayIsEvicted() async throws {
        let harness = try await RelayHarness(settings: ["REGISTER_LIMIT_PER_MINUTE": "1000", "NEW_BINDINGS_PER_TOKEN_PER_DAY": "64"])
        let token = TestToken.make()
        let hosts = (0..<17).map { _ in harness.host() }
        for host in hosts.prefix(16) {
            harness.clock.advance(milliseconds: 1)
            #expect(try await host.registerToken(token).status == 200)
        }
        let refused = try await hosts[16].registerToken(token)
        #expect(refused.status == 429 && refused.errorCode == "binding_limit", "all sixteen refreshed within 24 h")
        harness.clock.advance(milliseconds: 86_400_000)
        for host in hosts[1..<16] { #expect(try await host.registerToken(token).status == 200) }
        #expect(try await hosts[16].registerToken(token).status == 200, "host 0 is no longer protected")
        #expect(try await hosts[0].send(tokens: [token], title: "t").results.map(\.ok) == [false])
        #expect(try await hosts[1].send(tokens: [token], title: "t").results.map(\.ok) == [true])
        #expect(try await hosts[16].send(tokens: [token], title: "t").results.map(\.ok) == [true])
        await harness.stop()
    }

    @Test func atMostFourHostsJoinATokenADay() async throws {
        let harness = try await RelayHarness()
        let token = TestToken.make()
        let hosts = (0..<6).map { _ in harness.host() }
        for host in hosts.prefix(5) { #expect(try await host.registerToken(token).status == 200, "the first host and four joining") }
        let refused = try await hosts[5].registerToken(token)
        #expect(refused.status == 429 && refused.errorCode == "binding_limit")
        #expect(try await hosts[0].registerToken(token).status == 200, "a refresh is not a new host")
        harness.clock.advance(milliseconds: 86_400_001)
        #expect(try await hosts[5].registerToken(token).status == 200)
        await harness.stop()
    }

    @Test func tokenLimitRefusesNewTokensButNotExistingOnes() async throws {
        let harness = try await RelayHarness(settings: ["MAX_TOKENS": "2"])
        let host = harness.host()
        let a = TestToken.make(), b = TestToken.make()
        #expect(try await host.registerToken(a).status == 200)
        #expect(try await host.registerToken(b).status == 200)
        let third = try await host.registerToken(TestToken.make())
        #expect(third.status == 429 && third.errorCode == "token_limit")
        harness.clock.advance(milliseconds: 1)
        #expect(try await host.registerToken(a).status == 200)
        #expect(try await harness.host().registerToken(b).status == 200, "another host binding an existing token")
        await harness.stop()
    }

    @Test func alertAndLiveActivityTokensNeverMix() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let alert = TestToken.make(), activity = TestToken.make()
        _ = try await host.registerToken(alert)
        _ = try await host.registerLiveActivityToken(activity)
        #expect(try await host.send(tokens: [activity], title: "t").results.map(\.ok) == [false])
        let push = try LiveActivityPush(tokens: [alert], event: .update, contentState: LiveActivityContentState(
            status: .working, eventVersion: 1, updatedAt: harness.clock.nowSeconds), staleDate: 1)
        #expect(try await host.liveActivity(push).results.map(\.ok) == [false])
        #expect(harness.fake.requests.isEmpty)
        await harness.stop()
    }

    @Test func bindingsSurviveARestart() async throws {
        let first = try await RelayHarness()
        let key = P256PrivateKey()
        let token = TestToken.make()
        #expect(try await first.host(key).registerToken(token).status == 200)
        await first.stop(keepFiles: true)
        let second = try await RelayHarness(directory: first.directory)
        #expect(try await second.host(key).send(tokens: [token], title: "again").results.map(\.ok) == [true])
        await second.stop()
    }
}
