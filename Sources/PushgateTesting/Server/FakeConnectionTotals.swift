/// The connection totals every fake provider's public counters carry (``FakeAPNsCounters``,
/// ``FakeFCMCounters``), filled in from the server's.
protocol FakeConnectionTotals {
    var connectionsAccepted: Int { get set }
    var goAwaysSent: Int { get set }
    var connectionsDropped: Int { get set }
    var streamsReset: Int { get set }
    var maxConcurrentStreamsSeen: Int { get set }
}

extension FakeHTTP2Server {
    /// `counters` with this server's connection totals filled in.
    func addingConnectionTotals<Counters: FakeConnectionTotals>(to counters: Counters) -> Counters {
        let totals = control.counters
        var counters = counters
        counters.connectionsAccepted = totals.connectionsAccepted
        counters.goAwaysSent = totals.goAwaysSent
        counters.connectionsDropped = totals.connectionsDropped
        counters.streamsReset = totals.streamsReset
        counters.maxConcurrentStreamsSeen = totals.maxConcurrentStreamsSeen
        return counters
    }
}
