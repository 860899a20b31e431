/// The connection totals a fake server keeps, which every fake provider's counters carry
/// (``FakeAPNsCounters``, ``FakeFCMCounters``) and read as their own members.
public struct FakeConnectionCounters: Sendable, Equatable {
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
