/// A complete HTTP answer: status and body.
public struct HTTPClientReply: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// A request that got no HTTP answer: connection refused, TLS failure, timeout, an answer
/// larger than the limit, or a client that was shut down.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// True when the request ran out of time.
    public let timedOut: Bool

    public init(_ description: String, timedOut: Bool = false) {
        self.description = description
        self.timedOut = timedOut
    }
}
