import Synchronization

/// What a fake server's callers and its loop thread share about connections, behind one lock:
/// the stream policy and connection counters.
final class FakeServerControl: Sendable {
    /// Behaviour the loop applies as streams open and requests arrive.
    struct Policy: Sendable {
        var maxConcurrentStreams: Int
        var goAwayAfterStreams: Int?
        var dropAfterStreams: Int?
        /// Every Nth request the server receives (all connections together) is reset.
        var resetStreamsEvery: Int?
    }

    /// Work for the loop that cannot wait for the next stream.
    enum Command: Sendable {
        /// Close every open connection; `report` (if any) is then told how many, on the loop thread.
        case dropConnections(report: (@Sendable (_ dropped: Int) -> Void)?)
        case announceMaxConcurrentStreams(Int)
    }

    private struct Shared {
        var policy: Policy
        var counters = FakeConnectionCounters()
        /// Requests received since ``Policy/resetStreamsEvery`` was set.
        var requestsTowardReset = 0
    }

    private let shared: Mutex<Shared>

    init(maxConcurrentStreams: Int) {
        shared = Mutex(Shared(policy: Policy(maxConcurrentStreams: maxConcurrentStreams)))
    }

    var policy: Policy { shared.withLock { $0.policy } }
    func updatePolicy(_ change: (inout Policy) -> Void) { shared.withLock { change(&$0.policy) } }
    var counters: FakeConnectionCounters { shared.withLock { $0.counters } }
    func count(_ change: (inout FakeConnectionCounters) -> Void) { shared.withLock { change(&$0.counters) } }

    /// Resets every `requests`th request from now on (the count starts over); nil turns it off.
    func resetStreams(every requests: Int?) {
        shared.withLock { state in
            state.policy.resetStreamsEvery = requests
            state.requestsTowardReset = 0
        }
    }

    /// Counts one received request toward ``Policy/resetStreamsEvery``; true (and counted as a
    /// reset) when it is to be reset.
    func takeResetTurn() -> Bool {
        shared.withLock { state in
            guard let every = state.policy.resetStreamsEvery else { return false }
            state.requestsTowardReset += 1
            guard state.requestsTowardReset % every == 0 else { return false }
            state.counters.streamsReset += 1
            return true
        }
    }
}
