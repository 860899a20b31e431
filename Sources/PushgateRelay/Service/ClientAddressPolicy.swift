import Foundation
import PushgateHTTP

/// How the relay tells clients apart: the key of every per-IP limit (signed routes, `/v1/push`,
/// gateway), of the new-token buckets and of the replay ceiling.
///
/// - Important: docs/relay.md "Client address" — with `TRUST_PROXY_HOPS` = N > 0 and a socket
///   peer in `TRUSTED_PROXY_ADDRESSES` (any peer when that is unset), the client is the N-th
///   address from the right across every `X-Forwarded-For` line joined in order (entries to its
///   left are caller-written); otherwise the peer. An IPv6 client is its first
///   `IPV6_PREFIX_BITS` bits, an IPv4-mapped address its IPv4 address.
public struct ClientAddressPolicy: Sendable, Equatable {
    /// Proxies in front that append to `X-Forwarded-For`; 0 keys every request by its peer.
    public var trustedProxyHops = 0
    /// The peers whose `X-Forwarded-For` is read; `nil`: any peer's.
    public var trustedProxies: [IPNetwork]?
    /// How many leading bits of an IPv6 address make one client.
    public var ipv6PrefixBits = 64

    public init() {}

    /// The key a request is counted under. When a trusted proxy's header names fewer than
    /// N addresses, or the N-th is not an IP, that is `tooFewForwarded`, or the peer's key.
    func client(peer: String, headers: HTTPHeaders, tooFewForwarded: String? = nil) -> String {
        guard trustedProxyHops > 0, isTrustedProxy(peer) else { return key(peer) }
        guard let entry = Self.entry(trustedProxyHops, fromRightOf: headers.values(for: "x-forwarded-for")),
              let address = IPAddress(entry) else { return tooFewForwarded ?? key(peer) }
        return key(address)
    }

    /// The key of the client at `ip`; text that is not an IP address is its own key.
    func key(_ ip: String) -> String {
        // The hot path: a socket peer's IPv4 text is already its key.
        guard ip.utf8.contains(UInt8(ascii: ":")), let address = IPAddress(ip) else { return ip }
        return key(address)
    }

    private func key(_ address: IPAddress) -> String {
        address.isIPv4 ? address.description : "\(address.client(ipv6PrefixBits: ipv6PrefixBits))/\(ipv6PrefixBits)"
    }

    private func isTrustedProxy(_ peer: String) -> Bool {
        guard let trustedProxies else { return true }
        guard let address = IPAddress(peer) else { return false }
        return trustedProxies.contains { $0.contains(address) }
    }

    /// The `n`-th non-empty entry from the right of `lines` joined by commas in order, or `nil`
    /// when there are fewer. Scans from the right, so a long caller-written part costs nothing.
    static func entry(_ n: Int, fromRightOf lines: [String]) -> Substring? {
        var left = n
        for line in lines.reversed() {
            var rest = Substring(line)
            while true {
                let start = rest.lastIndex(of: ",").map(rest.index(after:)) ?? rest.startIndex
                var entry = rest[start...]
                while entry.first == " " || entry.first == "\t" { entry.removeFirst() }
                while entry.last == " " || entry.last == "\t" { entry.removeLast() }
                if !entry.isEmpty {
                    left -= 1
                    if left == 0 { return entry }
                }
                guard start > rest.startIndex else { break }
                rest = rest[..<rest.index(before: start)]
            }
        }
        return nil
    }
}

extension ClientAddressPolicy {
    /// Reads `TRUST_PROXY_HOPS` (else the gateway's `gatewayHops` when above 0, else 1 for the
    /// retired `TRUST_PROXY=true`), `TRUSTED_PROXY_ADDRESSES` and `IPV6_PREFIX_BITS`; notes on
    /// retired or risky combinations go to `warnings`.
    init(_ source: SettingsSource, gatewayHops: Int, warnings: inout [String]) throws(ConfigurationError) {
        let hops: Int? = source.value("TRUST_PROXY_HOPS") == nil ? nil : try source.integer("TRUST_PROXY_HOPS", default: 0, in: 0...8)
        let legacy = try source.bool("TRUST_PROXY")
        trustedProxyHops = hops ?? (gatewayHops > 0 ? gatewayHops : legacy ? 1 : 0)
        if legacy {
            warnings.append("\(SettingsSource.displayName("TRUST_PROXY")) is retired: the relay trusts \(trustedProxyHops) proxy hop(s); "
                + "set \(SettingsSource.displayName("TRUST_PROXY_HOPS")) instead (docs/relay.md)")
        }
        if hops != nil, gatewayHops > 0, gatewayHops != trustedProxyHops {
            warnings.append("\(GatewayConfiguration.prefix)TRUSTED_PROXY_HOPS is ignored: "
                + "\(SettingsSource.displayName("TRUST_PROXY_HOPS")) applies to every route")
        }
        if let list = source.value("TRUSTED_PROXY_ADDRESSES") {
            let networks = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !networks.isEmpty else { throw Self.badAddresses }
            trustedProxies = try networks.map { text throws(ConfigurationError) in
                guard let network = IPNetwork(cidr: text) else { throw Self.badAddresses }
                return network
            }
        } else if trustedProxyHops > 0 {
            warnings.append("any peer may choose its client address by X-Forwarded-For, and the proxy in front is held to "
                + "MAX_CONNECTIONS_PER_IP connections like any client: set "
                + "\(SettingsSource.displayName("TRUSTED_PROXY_ADDRESSES")) to the proxies in front (docs/security.md, M2, M6)")
        }
        ipv6PrefixBits = try source.integer("IPV6_PREFIX_BITS", default: ipv6PrefixBits, in: 32...128)
    }

    private static var badAddresses: ConfigurationError {
        ConfigurationError(setting: SettingsSource.displayName("TRUSTED_PROXY_ADDRESSES"),
                           problem: "must be a comma-separated list of IP networks such as 10.0.0.0/8,2001:db8::/32")
    }
}
