/// Running totals kept by the fake APNs, also in counters-only recording mode.
public struct FakeAPNsCounters: Sendable, Equatable, FakeConnectionTotals {
    /// Requests received: answered, waiting on a scripted delay, or reset.
    public var requests = 0
    /// Answered requests by the status they were given.
    public var byStatus: [Int: Int] = [:]
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
