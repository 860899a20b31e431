/// The public origin a gateway is served at and binds into every challenge.
///
/// - Important: protocol/gateway.md §1 — scheme, lowercase host, optional non-default port, no
///   path and no trailing slash; `https`, or `http` only on loopback.
public enum GatewayOrigin {
    /// `nil` when `text` is a canonical origin, else what is wrong with it.
    public static func problem(with text: String) -> String? {
        let scheme: String
        let rest: Substring
        if text.hasPrefix("https://") {
            (scheme, rest) = ("https", text.dropFirst(8))
        } else if text.hasPrefix("http://") {
            (scheme, rest) = ("http", text.dropFirst(7))
        } else {
            return "must start with https:// (or http:// on loopback)"
        }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#"), !rest.contains("@") else {
            return "must be an origin only: no path, no trailing slash, no query, no user"
        }
        guard let (host, port) = split(rest) else { return "has a malformed host or port" }
        guard host == host.lowercased() else { return "must have a lowercase host" }
        if let port {
            guard let number = Int(port), (1...65_535).contains(number), String(number) == port else {
                return "has an invalid port"
            }
            guard !(scheme == "https" && number == 443) && !(scheme == "http" && number == 80) else {
                return "must leave out the scheme's default port"
            }
        }
        if scheme == "http" && !["localhost", "127.0.0.1", "[::1]"].contains(host) {
            return "must use https unless the host is localhost, 127.0.0.1 or [::1]"
        }
        return nil
    }

    /// Host (brackets kept for IPv6) and the port text after `:`, if any.
    private static func split(_ authority: Substring) -> (host: String, port: String?)? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[...close])
            let after = authority[authority.index(after: close)...]
            guard host.count > 2 else { return nil }
            if after.isEmpty { return (host, nil) }
            guard after.hasPrefix(":") else { return nil }
            return (host, String(after.dropFirst()))
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2,
              host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }),
              host.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        return (String(host), parts.count == 2 ? String(parts[1]) : nil)
    }
}
