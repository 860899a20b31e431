/// A request to send over an HTTP/2 connection to `origin`.
public struct HTTP2Request: Sendable {
    public var origin: HTTP2Origin
    public var method: String
    /// The `:path`, starting with `/`.
    public var path: String
    /// Regular (non-pseudo) headers; names are lower-cased when sent.
    public var headers: [HTTP2Header]
    public var body: [UInt8]
    /// Overrides the pool's request timeout, in milliseconds.
    public var timeoutMilliseconds: Int64?

    public init(origin: HTTP2Origin, method: String = "POST", path: String, headers: [HTTP2Header] = [],
                body: [UInt8] = [], timeoutMilliseconds: Int64? = nil) {
        self.origin = origin
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}
