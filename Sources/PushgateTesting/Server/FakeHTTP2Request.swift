/// One HTTP/2 request as a fake server (APNs, FCM) received it: pseudo-headers split out, the
/// other headers in arrival order (HTTP/2 names are lower-case), and the body.
public struct FakeHTTP2Request: Sendable {
    public var method: String
    public var path: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, path: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The value of the first header called `name`, or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}
