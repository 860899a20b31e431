import Testing
@testable import PushgateHTTP

/// Parsing and printing of ``IPAddress``.
@Suite struct IPAddressTests {
    @Test func literalsRoundTripAndMappedIPv4IsIPv4() {
        #expect(IPAddress("192.0.2.1")?.description == "192.0.2.1")
        #expect(IPAddress("::ffff:192.0.2.1") == IPAddress("192.0.2.1"))
        #expect(IPAddress("2001:DB8:0:0:0:0:0:1")?.description == "2001:db8::1")
        #expect(IPAddress("2001:db8:1:2:3:4:5:6")?.keepingFirst(64).description == "2001:db8:1:2::")
        #expect(IPAddress("2001:db8:1:2:3344:4:5:6")?.keepingFirst(72).description == "2001:db8:1:2:3300::")
        #expect(IPAddress("192.0.2.1")?.client(ipv6PrefixBits: 32) == IPAddress("192.0.2.1"))
        for bad in ["", "192.0.2", "01.2.3.4", "[::1]", "192.0.2.1:80", "example.org"] { #expect(IPAddress(bad) == nil, "\(bad)") }
    }
}

/// CIDR networks (the relay's `TRUSTED_PROXY_ADDRESSES`).
@Suite struct IPNetworkTests {
    @Test func cidrParsesBothFamiliesAndBareAddresses() {
        #expect(IPNetwork(cidr: "10.0.0.0/8")?.contains(IPAddress("10.255.1.2")!) == true)
        #expect(IPNetwork(cidr: "10.0.0.0/8")?.contains(IPAddress("::ffff:10.9.9.9")!) == true)
        #expect(IPNetwork(cidr: "10.0.0.0/8")?.contains(IPAddress("11.0.0.1")!) == false)
        #expect(IPNetwork(cidr: "2001:db8::/32")?.contains(IPAddress("2001:db8:ffff::1")!) == true)
        #expect(IPNetwork(cidr: "2001:db8::/32")?.contains(IPAddress("2001:db9::1")!) == false)
        #expect(IPNetwork(cidr: "127.0.0.1")?.contains(IPAddress("127.0.0.2")!) == false)
        #expect(IPNetwork(cidr: "10.1.2.3/16")?.description == "10.1.0.0/16")
        #expect(IPNetwork(cidr: "2001:db8::1/64")?.description == "2001:db8::/64")
        for bad in ["10.0.0.0/33", "2001:db8::/129", "10.0.0.0/", "10.0.0.0/+8", "example.org", "10.0.0.0/8/8"] {
            #expect(IPNetwork(cidr: bad) == nil, "\(bad)")
        }
    }
}
