#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address, built from a literal for binding or read from a peer.
struct SocketAddress {
    private var storage = sockaddr_storage()

    /// Whether the address is IPv6.
    let isIPv6: Bool

    /// Parses an IPv4 or IPv6 literal (no host names, no zone ids) with `port`.
    init?(literal host: String, port: UInt16) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            isIPv6 = true
        } else {
            return nil
        }
    }

    /// Lends the address as a `sockaddr` pointer for the duration of `body`.
    mutating func withSockaddrPointer<T>(_ body: (UnsafeMutableRawPointer) throws -> T) rethrows -> T {
        try withUnsafeMutableBytes(of: &storage) { try body($0.baseAddress!) }
    }

    /// The text form of a peer's IP address, `nil` for families other than IPv4 and IPv6.
    static func text(of address: UnsafePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ip = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
            guard inet_ntop(AF_INET, &ip, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        case AF_INET6:
            var ip = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            guard inet_ntop(AF_INET6, &ip, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
