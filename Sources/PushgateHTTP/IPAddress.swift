import Glibc

/// An IPv4 or IPv6 address as 128 bits; an IPv4 address is held in its IPv4-mapped form
/// (`::ffff:a.b.c.d`), so both spellings of one IPv4 client are one address.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The first and last 64 of the 128 bits.
    let high: UInt64
    let low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The IPv4 address `a.b.c.d` as the integer `a << 24 | … | d`.
    init(ipv4 value: UInt32) { self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(value)) }

    init(_ v6: in6_addr) {
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        func word(_ start: Int) -> UInt64 { bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        self.init(high: word(0), low: word(8))
    }

    /// A numeric IPv4 or IPv6 literal (`192.0.2.1`, `2001:db8::1`, `::ffff:192.0.2.1`); `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        var v4 = in_addr()
        var v6 = in6_addr()
        let literal = String(text)
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            self.init(v6)
        } else {
            return nil
        }
    }

    /// The address of an `AF_INET` or `AF_INET6` socket address; `nil` for other families.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
        case AF_INET6:
            self.init(UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr)
        default:
            return nil
        }
    }

    /// Whether this is an IPv4 address (written either way).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The address with every bit after the first `bits` of the 128 cleared.
    public func keepingFirst(_ bits: Int) -> IPAddress {
        func mask(_ kept: Int) -> UInt64 { kept <= 0 ? 0 : kept >= 64 ? .max : ~(UInt64.max >> UInt64(kept)) }
        return IPAddress(high: high & mask(bits), low: low & mask(bits - 64))
    }

    /// The address of one client: an IPv4 address itself, an IPv6 address cut to its first
    /// `ipv6PrefixBits` (one subscriber usually holds a whole prefix, /64 or shorter).
    public func client(ipv6PrefixBits: Int) -> IPAddress {
        isIPv4 ? self : keepingFirst(ipv6PrefixBits)
    }

    /// `192.0.2.1` for IPv4, the shortest RFC 5952 form for IPv6.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if isIPv4 {
            var v4 = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
            inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
        } else {
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) { bytes in
                for index in 0..<8 {
                    bytes[index] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * index))
                    bytes[8 + index] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * index))
                }
            }
            inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
