/// A snapshot of a pool's work for one origin (for metrics and tests).
public struct HTTP2OriginStatistics: Sendable, Equatable {
    /// Connections opening, open or draining.
    public let connections: Int
    /// Streams open on those connections.
    public let openStreams: Int
    /// Requests waiting for a free stream or a connection.
    public let waitingRequests: Int

    public init(connections: Int, openStreams: Int, waitingRequests: Int) {
        self.connections = connections
        self.openStreams = openStreams
        self.waitingRequests = waitingRequests
    }
}
