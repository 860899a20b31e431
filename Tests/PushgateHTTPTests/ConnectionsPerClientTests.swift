import Glibc
import Testing
@testable import PushgateHTTP

/// The per-client connection cap's bookkeeping: IPv6 peers by their prefix, uncapped peers,
/// and slots given back on close.
@Suite struct ConnectionsPerClientTests {
    /// Calls `body` with `literal` as a socket address.
    private func withPeer<T>(_ literal: String, _ body: (UnsafePointer<sockaddr>) -> T) -> T {
        SocketAddress(ipLiteral: literal, port: 4711)!.withSockAddr { address, _ in body(address) }
    }

    @Test func anIPv6PrefixSharesOneCapAndAClosedConnectionGivesItsSlotBack() {
        let counts = ConnectionsPerClient(limit: 2, ipv6PrefixBits: 64, uncapped: [])
        let first = withPeer("2001:db8:1:2::1") { counts.client(of: $0) }!
        #expect(withPeer("2001:db8:1:2:ffff::9") { counts.client(of: $0) } == first)
        counts.opened(first)
        counts.opened(first)
        #expect(!withPeer("2001:db8:1:2::77") { counts.admits($0) }, "the /64 is at its cap")
        #expect(withPeer("2001:db8:1:3::1") { counts.admits($0) }, "another /64 is not")
        counts.closed(first)
        #expect(withPeer("2001:db8:1:2::77") { counts.admits($0) })
    }

    @Test func uncappedPeersAreNotCounted() {
        let counts = ConnectionsPerClient(limit: 1, ipv6PrefixBits: 128, uncapped: [IPNetwork(cidr: "10.0.0.0/8")!])
        #expect(withPeer("10.1.2.3") { counts.client(of: $0) } == nil)
        #expect(withPeer("10.1.2.3") { counts.admits($0) })
        let other = withPeer("192.0.2.1") { counts.client(of: $0) }!
        counts.opened(other)
        #expect(!withPeer("::ffff:192.0.2.1") { counts.admits($0) }, "an IPv4-mapped peer is its IPv4 address")
    }
}
