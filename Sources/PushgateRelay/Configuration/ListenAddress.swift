import PushgateHTTP

/// A `HOST:PORT` to listen on (`[HOST]:PORT` for IPv6), as `METRICS_LISTEN` takes it.
public struct ListenAddress: Sendable, Equatable {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; `nil` when it is not an IP literal and a port from 0 to 65 535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard SocketAddress(ipLiteral: host, port: port) != nil else { return nil }
        self.init(host: host, port: port)
    }
}
