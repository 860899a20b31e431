/// A `HOST:PORT` to listen on (`[HOST]:PORT` for IPv6), as `PUSHGATE_HOST_LISTEN` and the
/// relay's `METRICS_LISTEN` take it.
public struct ListenAddress: Sendable, Equatable {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (brackets around an IPv6 host are dropped); `nil` without a host or a
    /// port from 0 to 65 535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether the host is an IP address rather than a name.
    public var isIPLiteral: Bool { SocketAddress(ipLiteral: host, port: port) != nil }
}
