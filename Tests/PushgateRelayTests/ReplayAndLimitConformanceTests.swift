import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// Replays and rate limits (docs/relay.md "Replay set", "Rate limits").
@Suite(.hangLimit(.minutes(1))) struct ReplayAndLimitConformanceTests {
    /// The same body with `s` replaced by `n − s`.
    static func highSTwin(of body: [UInt8]) throws -> [UInt8] {
        var object = try JSONValue.parse(body).objectValue!
        let signature = try P1363Signature.decode(base64url: object["sig"]!.stringValue!)
        let order: [UInt8] = Array(try Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"))
        var s = Array(signature[32...])
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(s[index]) - borrow
            s[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        object["sig"] = .string(Base64URL.encode(Array(signature[..<32]) + s))
        return JSONValue.object(object).serializedBytes()
    }

    @Test func replayedSendAndItsHighSTwinAreRefused() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let body = try RelayRequestSigner(key: host.key).send(tokens: [token], title: "once", ts: harness.clock.nowMilliseconds)
        #expect(try await host.post("send", body).results.map(\.ok) == [true])
        #expect(try await host.post("send", body).errorCode == "replay")
        let twin = try Self.highSTwin(of: body)
        #expect(twin != body)
        #expect(try await host.post("send", twin).errorCode == "replay")
        #expect(harness.received(token).count == 1)
        await harness.stop()
    }

    @Test func replayedRegisterChangesNothing() async throws {
        let harness = try await RelayHarness()
        let hostA = harness.host(), hostB = harness.host()
        let token = TestToken.make()
        let register = try RelayRequestSigner(key: hostA.key).registerToken(token, ts: harness.clock.nowMilliseconds)
        #expect(try await hostA.post("register-token", register).status == 200)
        harness.clock.advance(milliseconds: 1)
        #expect(try await hostA.unregisterToken(token).status == 200)
        _ = try await hostB.registerToken(token)
        // The captured register, replayed after A left and B bound the token, restores nothing.
        #expect(try await hostA.post("register-token", register).status == 200)
        #expect(try await hostA.send(tokens: [token], title: "t").results.map(\.ok) == [false])
        #expect(try await hostB.send(tokens: [token], title: "t").results.map(\.ok) == [true])
        await harness.stop()
    }

    @Test func atTheReplayCeilingTheClientHoldingTheMostKeysIsRefused() async throws {
        let harness = try await RelayHarness(settings: ["MAX_REPLAY_KEYS": "2"])
        let host = harness.host()
        #expect(try await host.registerToken(TestToken.make()).status == 200)
        #expect(try await host.registerToken(TestToken.make()).status == 200)
        let third = try await host.registerToken(TestToken.make())
        #expect(third.status == 429 && third.errorCode == "rate_limited")
        harness.clock.advance(milliseconds: 301_001)
        #expect(try await host.registerToken(TestToken.make()).status == 200, "keys expire at ts + skew + 1 s")
        await harness.stop()
    }

    @Test func aSendThePerServerLimitRefusedIsNotRecorded() async throws {
        let harness = try await RelayHarness(settings: ["SERVER_SEND_LIMIT_PER_MINUTE": "1"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        #expect(try await host.send(tokens: [token], title: "first").status == 200)
        let second = try RelayRequestSigner(key: host.key).send(tokens: [token], title: "second", ts: harness.clock.nowMilliseconds)
        #expect(try await host.post("send", second).errorCode == "rate_limited")
        harness.clock.advance(milliseconds: 60_000)
        #expect(try await host.post("send", second).results.map(\.ok) == [true], "the refused request may come again")
        await harness.stop()
    }

    @Test func oneSignatureIsOneKeyOnEveryRoute() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        let signer = RelayRequestSigner(key: host.key)
        let register = try signer.liveActivityToken(token, ts: harness.clock.nowMilliseconds)
        #expect(try await host.post("register-live-activity-token", register).status == 200)
        // The same signed bytes on the unregister path are a replay: they change nothing.
        #expect(try await host.post("unregister-live-activity-token", register).status == 200)
        let push = try LiveActivityPush(tokens: [token], event: .update, contentState: LiveActivityContentState(
            status: .working, eventVersion: 1, updatedAt: harness.clock.nowSeconds))
        #expect(try await host.liveActivity(push).results.map(\.ok) == [true], "the binding is still there")
        await harness.stop()
    }

    @Test func sixtyFirstRegisterFromOneIPWithinAMinuteIsRefused() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        for _ in 0..<60 { #expect(try await host.registerToken(TestToken.make()).status == 200) }
        let refused = try await host.registerToken(TestToken.make())
        #expect(refused.status == 429 && refused.errorCode == "rate_limited")
        harness.clock.advance(milliseconds: 60_000)
        #expect(try await host.registerToken(TestToken.make()).status == 200)
        await harness.stop()
    }

    @Test func oneTrustedHopKeysOnTheRightmostForwardedAddress() async throws {
        let harness = try await RelayHarness(settings: ["TRUST_PROXY_HOPS": "1", "REGISTER_LIMIT_PER_MINUTE": "1"])
        let key = P256PrivateKey()
        func register(_ forwarded: String?) async throws -> Int {
            let body = try RelayRequestSigner(key: key).registerToken(TestToken.make(), ts: harness.clock.nowMilliseconds)
            return try await harness.request("POST", "/v1/push/register-token", body: body,
                                             headers: forwarded.map { ["x-forwarded-for": $0] } ?? [:]).status
        }
        #expect(try await register("203.0.113.1") == 200)
        #expect(try await register("203.0.113.1") == 429)
        #expect(try await register("203.0.113.2") == 200, "another client behind the proxy")
        #expect(try await register("198.51.100.9, 203.0.113.2") == 429, "the caller-written left part changes nothing")
        #expect(try await register(nil) == 200, "no header: the peer")
        #expect(try await register("not-an-ip") == 429, "not an address: the peer, whose budget is spent")
        await harness.stop()
    }

    @Test func perServerLimitSpansAddressesAndIsIndependentOfPerIPLimits() async throws {
        let harness = try await RelayHarness(settings: ["TRUST_PROXY_HOPS": "1", "SERVER_SEND_LIMIT_PER_MINUTE": "3"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        for index in 0..<4 {
            harness.clock.advance(milliseconds: 1)
            let body = try RelayRequestSigner(key: host.key).send(tokens: [token], title: "t", ts: harness.clock.nowMilliseconds)
            let reply = try await harness.request("POST", "/v1/push/send", body: body, headers: ["x-forwarded-for": "198.51.100.\(index)"])
            #expect(reply.status == (index < 3 ? 200 : 429), "send \(index)")
        }
        // Another host from the same addresses still has its own budget.
        let other = harness.host()
        _ = try await other.registerToken(token)
        #expect(try await other.send(tokens: [token], title: "t").status == 200)
        await harness.stop()
    }
}
