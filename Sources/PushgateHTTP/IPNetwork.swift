/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); a bare address
/// is a network of that one address.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address, host bits cleared.
    let first: IPAddress
    /// The prefix length within the 128 bits (an IPv4 `/n` is `96 + n`).
    let bits: Int

    /// Parses `address[/length]`; `nil` when the address is not an IP literal or the length is
    /// out of range (0–32 for IPv4, 0–128 for IPv6).
    public init?(cidr: some StringProtocol) {
        let parts = cidr.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var length = width
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int(parts[1]), parsed <= width else { return nil }
            length = parsed
        }
        bits = 128 - width + length
        first = address.keepingFirst(bits)
    }

    /// Whether `address` lies in this network.
    public func contains(_ address: IPAddress) -> Bool { address.keepingFirst(bits) == first }

    public var description: String {
        first.isIPv4 && bits >= 96 ? "\(first)/\(bits - 96)" : "\(first)/\(bits)"
    }
}
