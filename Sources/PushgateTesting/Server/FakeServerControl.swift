import Synchronization

/// What a fake server's callers and its I/O thread share about connections, behind one lock:
/// the stream policy, commands waiting for the loop, and connection counters.
final class FakeServerControl: Sendable {
    /// Per-connection behaviour the loop applies as streams open.
    struct Policy: Sendable {
        var maxConcurrentStreams: Int
        var goAwayAfterStreams: Int?
        var dropAfterStreams: Int?
    }

    /// Work for the loop that cannot wait for the next stream.
    enum Command: Sendable {
        case dropConnections
        case announceMaxConcurrentStreams(Int)
        case stop
    }

    /// Connection totals.
    struct Counters: Sendable, Equatable {
        var connectionsAccepted = 0
        var goAwaysSent = 0
        var connectionsDropped = 0
        var maxConcurrentStreamsSeen = 0
    }

    private struct Shared {
        var policy: Policy
        var commands: [Command] = []
        var counters = Counters()
    }

    private let shared: Mutex<Shared>

    init(maxConcurrentStreams: Int) {
        shared = Mutex(Shared(policy: Policy(maxConcurrentStreams: maxConcurrentStreams)))
    }

    var policy: Policy { shared.withLock { $0.policy } }
    func updatePolicy(_ change: (inout Policy) -> Void) { shared.withLock { change(&$0.policy) } }
    func enqueue(_ command: Command) { shared.withLock { $0.commands.append(command) } }
    func takeCommands() -> [Command] { shared.withLock { state in defer { state.commands.removeAll() }; return state.commands } }
    var counters: Counters { shared.withLock { $0.counters } }
    func count(_ change: (inout Counters) -> Void) { shared.withLock { change(&$0.counters) } }
}
