/// The scheme-host-port of an HTTPS server: one pool of HTTP/2 connections per origin.
public struct HTTP2Origin: Hashable, Sendable, CustomStringConvertible {
    /// A DNS name or an IP literal (IPv6 without brackets).
    public let host: String
    public let port: UInt16

    public init(host: String, port: UInt16 = 443) {
        self.host = host
        self.port = port
    }

    /// Parses `https://host[:port]` (IPv6 in brackets); a trailing `/` is allowed, any other path is not.
    public init(url: String) throws {
        let invalid = HTTP2ClientError(.invalidRequest, detail: "origin must look like https://host[:port]")
        guard url.hasPrefix("https://") else { throw invalid }
        var rest = Substring(url.dropFirst("https://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else { throw invalid }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw invalid }
        var port: UInt16 = 443
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { throw invalid }
            port = parsed
        }
        self.init(host: String(host), port: port)
    }

    /// The `:authority` pseudo-header: host, plus the port unless it is 443.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    public var description: String { "https://\(authority)" }
}
