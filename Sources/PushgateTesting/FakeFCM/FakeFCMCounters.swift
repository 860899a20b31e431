/// Running totals kept by the fake FCM, also when it keeps no records.
public struct FakeFCMCounters: Sendable, Equatable, FakeConnectionTotals {
    /// OAuth exchanges received (`POST /token`, reset ones included), and how many were granted.
    public var tokenRequests = 0
    public var tokensIssued = 0
    /// Other requests received (sends, and requests for paths the fake does not serve; reset ones included).
    public var sendRequests = 0
    /// Answered sends by the status they were given.
    public var sendsByStatus: [Int: Int] = [:]
    /// TLS connections accepted.
    public var connectionsAccepted = 0
    /// GOAWAY frames sent because of ``FakeProvider/goAway(afterStreams:)``.
    public var goAwaysSent = 0
    /// Connections closed on purpose (drop now, or drop after N streams).
    public var connectionsDropped = 0
    /// Requests answered with RST_STREAM because of ``FakeProvider/resetStreams(every:)``.
    public var streamsReset = 0
    /// The most streams seen open at the same time on one connection.
    public var maxConcurrentStreamsSeen = 0

    public init() {}
}
