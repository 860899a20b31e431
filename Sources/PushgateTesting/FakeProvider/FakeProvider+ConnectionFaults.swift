/// The connection faults every fake provider can inject, for clients' retry and reconnect paths.
extension FakeProvider {
    /// Sends GOAWAY on each connection once it has opened `streams` streams (that stream is the
    /// last one served; later ones are refused and must be retried elsewhere); nil turns it off.
    public func goAway(afterStreams streams: Int?) { server.control.updatePolicy { $0.goAwayAfterStreams = streams } }

    /// Closes each connection's TCP socket, without GOAWAY, when stream number `streams` opens:
    /// the earlier streams are answered, that one and any still waiting are lost. nil turns it off.
    public func dropConnections(afterStreams streams: Int?) { server.control.updatePolicy { $0.dropAfterStreams = streams } }

    /// Answers every `requests`th request the fake receives from now on (counted over all
    /// connections, starting over at each call) with RST_STREAM INTERNAL_ERROR instead of a
    /// response. Such a request is counted and recorded (`reset`, status 0) but takes no step
    /// of its token's script. nil turns it off.
    public func resetStreams(every requests: Int?) {
        precondition(requests.map { $0 >= 1 } ?? true, "resetStreams(every:) needs at least 1")
        server.control.resetStreams(every: requests)
    }

    /// Closes every open connection now, without GOAWAY; the fake keeps listening. `report`,
    /// when given, is then called on the fake's I/O thread with how many it closed (keep it
    /// quick; stopping the fake from it would wait for that very thread).
    public func dropConnectionsNow(then report: (@Sendable (_ dropped: Int) -> Void)? = nil) {
        server.command(.dropConnections(report: report))
    }

    /// Announces a new SETTINGS_MAX_CONCURRENT_STREAMS on open connections and uses it for new ones.
    public func setMaxConcurrentStreams(_ limit: Int) {
        server.control.updatePolicy { $0.maxConcurrentStreams = limit }
        server.command(.announceMaxConcurrentStreams(limit))
    }
}
