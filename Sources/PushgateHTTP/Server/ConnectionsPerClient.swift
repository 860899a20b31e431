import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Open connections per client, for ``HTTPServerConfiguration/perIPConnectionLimit``: an IPv6
/// peer counts by its first ``HTTPServerConfiguration/clientIPv6PrefixBits`` bits, and peers in
/// ``HTTPServerConfiguration/uncappedPeers`` (proxies in front) are not counted.
///
/// libmicrohttpd asks ``admits(_:)`` before it sets a connection up and reports the connections
/// it opened and closed; all three run on the daemon's one loop thread, so no connection gets in
/// between a check and its count.
final class ConnectionsPerClient: Sendable {
    private let limit: Int
    private let ipv6PrefixBits: Int
    private let uncapped: [IPNetwork]
    private let open = Mutex<[IPAddress: Int]>([:])

    init(limit: Int, ipv6PrefixBits: Int, uncapped: [IPNetwork]) {
        self.limit = limit
        self.ipv6PrefixBits = ipv6PrefixBits
        self.uncapped = uncapped
    }

    /// The client a peer's connections count against; `nil` for an uncapped peer.
    func client(of peer: UnsafePointer<sockaddr>) -> IPAddress? {
        guard let address = IPAddress(peer), !uncapped.contains(where: { $0.contains(address) }) else { return nil }
        return address.client(ipv6PrefixBits: ipv6PrefixBits)
    }

    /// Whether a new connection from `peer` stays within the cap.
    func admits(_ peer: UnsafePointer<sockaddr>) -> Bool {
        guard let client = client(of: peer) else { return true }
        return open.withLock { $0[client, default: 0] < limit }
    }

    /// A connection of `client` was opened.
    func opened(_ client: IPAddress) { open.withLock { $0[client, default: 0] += 1 } }

    /// A connection of `client` was closed.
    func closed(_ client: IPAddress) {
        open.withLock { open in
            let left = open[client, default: 1] - 1
            open[client] = left > 0 ? left : nil
        }
    }
}
