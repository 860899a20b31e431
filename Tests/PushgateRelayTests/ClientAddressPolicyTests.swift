import PushgateHTTP
import Testing
@testable import PushgateRelay

/// docs/relay.md "Client address": the key every per-IP limit counts a request under.
@Suite struct ClientAddressPolicyTests {
    private func policy(hops: Int = 0, proxies: [String]? = nil, prefix: Int = 64) -> ClientAddressPolicy {
        var policy = ClientAddressPolicy()
        policy.trustedProxyHops = hops
        policy.trustedProxies = proxies?.map { IPNetwork(cidr: $0)! }
        policy.ipv6PrefixBits = prefix
        return policy
    }

    private func forwarded(_ lines: String...) -> HTTPHeaders { HTTPHeaders(lines.map { (name: "X-Forwarded-For", value: $0) }) }

    @Test func ipv4StaysIPv6GoesByItsPrefixAndMappedIPv4IsIPv4() {
        let keys = policy()
        #expect(keys.key("203.0.113.7") == "203.0.113.7")
        #expect(keys.key("::ffff:203.0.113.7") == "203.0.113.7")
        #expect(keys.key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64")
        #expect(keys.key("2001:db8:1:2::9") == keys.key("2001:db8:1:2:ffff::1"))
        #expect(keys.key("unknown") == "unknown")
        #expect(policy(prefix: 48).key("2001:db8:1:2::9") == "2001:db8:1::/48")
        #expect(policy(prefix: 128).key("2001:db8::9") == "2001:db8::9/128")
    }

    @Test func theNthEntryFromTheRightSpansEveryLine() {
        let lines = ["198.51.100.1, 198.51.100.2", " , 198.51.100.3 ", "198.51.100.4"]
        #expect(ClientAddressPolicy.entry(1, fromRightOf: lines) == "198.51.100.4")
        #expect(ClientAddressPolicy.entry(2, fromRightOf: lines) == "198.51.100.3", "empty entries do not count")
        #expect(ClientAddressPolicy.entry(3, fromRightOf: lines) == "198.51.100.2")
        #expect(ClientAddressPolicy.entry(4, fromRightOf: lines) == "198.51.100.1")
        #expect(ClientAddressPolicy.entry(5, fromRightOf: lines) == nil)
        #expect(ClientAddressPolicy.entry(1, fromRightOf: []) == nil)
    }

    @Test func forwardedAddressesCountOnlyFromTrustedProxiesWithHops() {
        let headers = forwarded("192.0.2.1", "2001:db8:7:7::1, 203.0.113.9")
        #expect(policy().client(peer: "10.0.0.1", headers: headers) == "10.0.0.1", "no hops: the peer")
        #expect(policy(hops: 1).client(peer: "10.0.0.1", headers: headers) == "203.0.113.9", "any peer when no list")
        #expect(policy(hops: 2, proxies: ["10.0.0.0/8"]).client(peer: "10.0.0.1", headers: headers) == "2001:db8:7:7::/64")
        #expect(policy(hops: 3, proxies: ["10.0.0.0/8"]).client(peer: "10.0.0.1", headers: headers) == "192.0.2.1")
        #expect(policy(hops: 1, proxies: ["10.0.0.0/8"]).client(peer: "172.16.0.1", headers: headers) == "172.16.0.1",
                "a peer outside the list cannot choose its address")
        #expect(policy(hops: 4).client(peer: "10.0.0.1", headers: headers) == "10.0.0.1", "too few: the peer")
        #expect(policy(hops: 4).client(peer: "10.0.0.1", headers: headers, tooFewForwarded: "unknown") == "unknown")
        #expect(policy(hops: 1).client(peer: "10.0.0.1", headers: forwarded("not-an-ip")) == "10.0.0.1")
        #expect(policy(hops: 1, proxies: ["::1"]).client(peer: "::1", headers: forwarded("::ffff:192.0.2.5")) == "192.0.2.5")
    }
}
