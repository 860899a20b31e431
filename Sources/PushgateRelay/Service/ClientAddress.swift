import Foundation

/// The client IP that per-IP limits are keyed by.
///
/// - Important: the socket peer, unless trust-proxy is on and `X-Forwarded-For` holds exactly
///   one valid IP (a comma list is ignored) — relay-protocol.md §2.
enum ClientAddress {
    static func resolve(peer: String, forwardedFor: String?, trustProxy: Bool) -> String {
        guard trustProxy, let header = forwardedFor?.trimmingCharacters(in: .whitespaces),
              !header.contains(","), isIPAddress(header) else { return peer }
        return header
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
