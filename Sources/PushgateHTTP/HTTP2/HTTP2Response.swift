/// A complete HTTP/2 response.
public struct HTTP2Response: Sendable {
    public let status: Int
    /// Response headers without pseudo-headers, names in lower case.
    public let headers: [HTTP2Header]
    /// The body, at most the pool's `maxResponseBodyBytes`.
    public let body: [UInt8]
    /// Whether the server sent more than `maxResponseBodyBytes` (the rest was discarded).
    public let bodyTruncated: Bool

    public init(status: Int, headers: [HTTP2Header], body: [UInt8], bodyTruncated: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
    }
}
