import Foundation

/// The client IP that per-IP limits are keyed by.
///
/// - Important: the socket peer, unless trust-proxy is on and `X-Forwarded-For` holds exactly
///   one valid IP (a comma list is ignored) — docs/relay.md "Order of checks".
enum ClientAddress {
    static func resolve(peer: String, forwardedFor: String?, trustProxy: Bool) -> String {
        guard trustProxy, let header = forwardedFor?.trimmingCharacters(in: .whitespaces),
              !header.contains(","), isIPAddress(header) else { return peer }
        return header
    }

    /// The key a client's replay keys and new tokens are counted under: an IPv4 address as is
    /// (also when written IPv4-mapped), an IPv6 address by its /64 (one subscriber usually holds
    /// a whole /64), other text as is.
    static func group(_ ip: String) -> String {
        var v6 = in6_addr()
        guard ip.utf8.contains(UInt8(ascii: ":")), inet_pton(AF_INET6, ip, &v6) == 1 else { return ip }
        let all = withUnsafeBytes(of: v6) { Array($0) }
        // An IPv4 client written as ::ffff:a.b.c.d is that IPv4 client.
        if all.prefix(10).allSatisfy({ $0 == 0 }), all[10] == 0xff, all[11] == 0xff {
            return all[12...].map(String.init).joined(separator: ".")
        }
        let bytes = all.prefix(8)
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
