/// Limits and timings of an ``HTTP2ClientPool``. All durations are milliseconds of the pool's monotonic clock.
public struct HTTP2ClientConfiguration: Sendable {
    /// A PEM file of extra trusted CAs, added to the system store (for a local fake server).
    public var extraCAFile: String?
    /// Connections per origin; a new one opens only while every open one is at the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConnectionsPerOrigin: Int = 4
    /// Requests per origin that may wait for a free stream; beyond that a request fails with `queueFull`.
    public var maxQueuedRequestsPerOrigin: Int = 10_000
    /// Default per-request deadline.
    public var requestTimeoutMilliseconds: Int64 = 5_000
    /// Limit on the TCP connect plus TLS and HTTP/2 handshakes.
    public var connectTimeoutMilliseconds: Int64 = 10_000
    /// A connection that received nothing for this long is sent a PING.
    public var idlePingIntervalMilliseconds: Int64 = 60_000
    /// A PING unanswered (no bytes at all) for this long marks the connection dead.
    public var pingTimeoutMilliseconds: Int64 = 10_000
    /// First delay after a failed connection; it doubles per consecutive failure.
    public var reconnectBaseDelayMilliseconds: Int64 = 100
    /// Largest delay between connection attempts.
    public var reconnectMaxDelayMilliseconds: Int64 = 30_000
    /// Response bodies are kept up to this size; the rest is discarded.
    public var maxResponseBodyBytes: Int = 64 * 1024
    /// The longest the pool waits, while a timer is pending, before re-reading the clock (so a
    /// manual clock is noticed).
    public var timerGranularityMilliseconds: Int32 = 250

    public init(extraCAFile: String? = nil) {
        self.extraCAFile = extraCAFile
    }
}
