import PushgateCore

/// A body cap and the answer for a body over it.
public struct HTTPBodyLimit: Sendable {
    /// The largest request body accepted; larger ones get ``tooLargeResponse`` and are not buffered.
    public var maxBytes: Int
    public var tooLargeResponse: HTTPResponse

    public init(maxBytes: Int, tooLargeResponse: HTTPResponse = HTTPResponse(status: 413)) {
        self.maxBytes = maxBytes
        self.tooLargeResponse = tooLargeResponse
    }
}

/// Settings of an ``HTTPServer``: where it listens, which loop runs it, connections, timeouts and body cap.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 or IPv6 literal to bind (`127.0.0.1`, `0.0.0.0`, `::1`, `::`); host names are refused.
    /// An IPv6 address accepts IPv6 only (`IPV6_V6ONLY`).
    public var host: String
    /// The port to bind; 0 picks a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16
    /// The loop the server's epoll work runs on, e.g. shared with the ``HTTP1Client`` its
    /// handlers wait on; when `nil` the server makes one of its own. Handlers run on the
    /// cooperative thread pool (or inline, see ``RouteHandler``), not on this loop.
    public var eventLoop: EpollEventLoop?
    /// A connection silent this long is closed (whole seconds, at least 1).
    public var idleTimeout: Duration
    /// A request's headers and body must arrive within this time of the connection becoming ready
    /// for it, however steadily a slow client trickles bytes.
    public var requestTimeout: Duration
    /// The most open connections; the excess is closed at once.
    public var connectionLimit: Int
    /// The most open connections from one client IP; 0 means no per-IP limit.
    public var perIPConnectionLimit: Int
    /// How many leading bits of an IPv6 peer make one client for ``perIPConnectionLimit``
    /// (128: each address is a client of its own).
    public var clientIPv6PrefixBits = 128
    /// Peers ``perIPConnectionLimit`` does not apply to: proxies in front, each of which carries
    /// many clients' connections.
    public var uncappedPeers: [IPNetwork] = []
    /// The largest request body accepted; larger ones get ``payloadTooLargeResponse`` and are not buffered.
    public var maxBodyBytes: Int
    /// The response for a body over ``maxBodyBytes`` (default: 413, empty body).
    public var payloadTooLargeResponse: HTTPResponse
    /// Body caps for single routes, by route pattern, instead of ``maxBodyBytes`` and
    /// ``payloadTooLargeResponse`` (one route may take larger bodies than the rest).
    public var routeBodyLimits: [String: HTTPBodyLimit] = [:]
    /// Header fields added to every application response that does not set the same name itself.
    public var defaultHeaders: HTTPHeaders
    /// Where the server reports handlers cut off by `stop()` and responses it could not send.
    public var logger: Logger

    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        idleTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(10),
        connectionLimit: Int = 1024,
        perIPConnectionLimit: Int = 64,
        maxBodyBytes: Int = 16 * 1024,
        payloadTooLargeResponse: HTTPResponse = HTTPResponse(status: 413),
        defaultHeaders: HTTPHeaders = [:],
        logger: Logger = Logger(component: "http-server")
    ) {
        self.host = host
        self.port = port
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.maxBodyBytes = maxBodyBytes
        self.payloadTooLargeResponse = payloadTooLargeResponse
        self.defaultHeaders = defaultHeaders
        self.logger = logger
    }

    /// Throws ``HTTPServerError`` naming the first setting out of range.
    func validate() throws {
        func require(_ ok: Bool, _ setting: String, _ rule: String) throws {
            if !ok { throw HTTPServerError.invalidSetting(setting, rule) }
        }
        try require(idleTimeout >= .seconds(1), "idleTimeout", "at least 1 s")
        try require(requestTimeout >= .milliseconds(100), "requestTimeout", "at least 100 ms")
        try require(connectionLimit >= 1, "connectionLimit", "at least 1")
        try require(perIPConnectionLimit >= 0, "perIPConnectionLimit", "0 or more")
        try require((1...128).contains(clientIPv6PrefixBits), "clientIPv6PrefixBits", "1 to 128")
        try require(maxBodyBytes >= 0, "maxBodyBytes", "0 or more")
        try require(routeBodyLimits.values.allSatisfy { $0.maxBytes >= 0 }, "routeBodyLimits", "0 or more bytes each")
    }

    /// The body cap of the route `pattern` (`nil`: no route matched).
    func bodyLimit(route pattern: String?) -> HTTPBodyLimit {
        pattern.flatMap { routeBodyLimits[$0] } ?? HTTPBodyLimit(maxBytes: maxBodyBytes, tooLargeResponse: payloadTooLargeResponse)
    }

    /// ``idleTimeout`` in whole seconds, rounded up.
    var idleTimeoutSeconds: Int {
        let (seconds, attoseconds) = idleTimeout.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
