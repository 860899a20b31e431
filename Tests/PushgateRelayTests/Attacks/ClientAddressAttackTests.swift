import Foundation
import PushgateCore
import PushgateTestSupport
import PushgateTesting
import Testing

/// docs/security.md M1 and M2: the per-IP limits against address churn, IPv6 prefixes and
/// forged `X-Forwarded-For` lines, on the real binary with its tables scaled down.
@Suite(.serialized, .hangLimit(.minutes(1))) struct ClientAddressAttackTests {
    /// The loopback address that plays the proxy in front of the relay.
    static let proxy = "127.1.200.1"

    /// M1: more addresses than the limiters hold each register a token, send and push once; a
    /// new client is then served on every route, and its own limit still holds.
    @Test func aChurnOfAddressesNeverLocksANewClientOut() async throws {
        let relay = try await RelayUnderAttack(settings: ["RATE_LIMIT_MAX_KEYS": "200", "REGISTER_LIMIT_PER_MINUTE": "2",
                                                          "SEND_LIMIT_PER_MINUTE": "2", "SERVER_SEND_LIMIT_PER_MINUTE": "2",
                                                          "NEW_TOKENS_PER_IP_PER_HOUR": "2"])
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in
            for n in 0 ..< 250 {
                let junk = SigningHost(), junkToken = TestToken.make()
                #expect(try relay.post("register-token", junk.register(junkToken, at: relay.nowMs), from: attacker(n)).status == 200)
                #expect(try relay.post("send", junk.send([junkToken], at: relay.nowMs), from: attacker(n)).status == 200)
                #expect(try relay.hapiPush(junkToken, from: attacker(n)).status == 200)
            }
            let newcomer = attacker(400)
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs), from: newcomer).status == 200)
            #expect(try relay.post("send", host.send([token], at: relay.nowMs), from: newcomer).rows.map(\.ok) == [true])
            #expect(try relay.hapiPush(token, from: newcomer).status == 200)
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs + 1), from: newcomer).status == 200)
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs + 2), from: newcomer).errorCode == "rate_limited",
                    "the newcomer's own limit still holds")
        }
        #expect(relay.delivered(token) == 2)
        try await relay.stop()
    }

    /// M1: behind a trusted proxy, every address of one IPv6 prefix (here /56) and both
    /// spellings of one IPv4 address are one client.
    @Test func anIPv6PrefixIsOneClient() async throws {
        let relay = try await RelayUnderAttack(settings: ["TRUST_PROXY_HOPS": "1", "TRUSTED_PROXY_ADDRESSES": Self.proxy,
                                                          "IPV6_PREFIX_BITS": "56", "REGISTER_LIMIT_PER_MINUTE": "2"])
        let key = SigningHost()
        try await onOwnThread { () throws in
            func register(as client: String) throws -> Int {
                try relay.post("register-token", key.register(TestToken.make(), at: relay.nowMs), from: Self.proxy,
                               headers: ["X-Forwarded-For: \(client)"]).status
            }
            #expect(try register(as: "2001:db8:0:100::1") == 200)
            #expect(try register(as: "2001:db8:0:1ff:ffff::2") == 200)
            #expect(try register(as: "2001:db8:0:1a0::3") == 429, "the same /56")
            #expect(try register(as: "2001:db8:0:200::1") == 200, "the next /56")
            #expect(try register(as: "::ffff:198.51.100.7") == 200)
            #expect(try register(as: "198.51.100.7") == 200)
            #expect(try register(as: "198.51.100.7") == 429, "an IPv4-mapped address is its IPv4 address")
        }
        try await relay.stop()
    }

    /// M2: a client writing its own first `X-Forwarded-For` line (or the left part of the
    /// proxy's) is still counted by the address the proxy appended.
    @Test func aClientWrittenForwardedLineDoesNotEscapeThePerIPLimit() async throws {
        let relay = try await RelayUnderAttack(settings: ["TRUST_PROXY_HOPS": "1", "TRUSTED_PROXY_ADDRESSES": Self.proxy,
                                                          "REGISTER_LIMIT_PER_MINUTE": "3"])
        let key = SigningHost()
        try await onOwnThread { () throws in
            func register(_ lines: [String]) throws -> Int {
                try relay.post("register-token", key.register(TestToken.make(), at: relay.nowMs), from: Self.proxy,
                               headers: lines.map { "X-Forwarded-For: \($0)" }).status
            }
            let answers = try (0 ..< 5).map { n in try register(["198.51.100.\(n)", "203.0.113.7"]) }
            #expect(answers == [200, 200, 200, 429, 429])
            #expect(try register(["198.51.100.9, 203.0.113.7"]) == 429)
            #expect(try register(["203.0.113.7, 203.0.113.8"]) == 200, "another client behind the proxy")
        }
        try await relay.stop()
    }

    /// M2: a peer outside `TRUSTED_PROXY_ADDRESSES` is counted by its own address whatever its
    /// header says; the proxy's forwarded clients keep their own budgets.
    @Test func aPeerOutsideTheTrustedProxiesCannotChooseItsAddress() async throws {
        let relay = try await RelayUnderAttack(settings: ["TRUST_PROXY_HOPS": "1", "TRUSTED_PROXY_ADDRESSES": Self.proxy + "/32",
                                                          "REGISTER_LIMIT_PER_MINUTE": "3"])
        let key = SigningHost()
        try await onOwnThread { () throws in
            func register(from source: String, as client: String) throws -> Int {
                try relay.post("register-token", key.register(TestToken.make(), at: relay.nowMs), from: source,
                               headers: ["X-Forwarded-For: \(client)"]).status
            }
            let answers = try (0 ..< 5).map { n in try register(from: attacker(9), as: "198.51.100.\(n)") }
            #expect(answers == [200, 200, 200, 429, 429])
            #expect(try register(from: Self.proxy, as: "198.51.100.4") == 200, "through the proxy, that client is fresh")
        }
        try await relay.stop()
    }
}
