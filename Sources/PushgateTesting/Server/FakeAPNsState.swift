import PushgateCore
import Synchronization

/// Everything the fake's I/O thread and its callers share, behind one lock: scripts, records,
/// counters, connection policy, and commands waiting for the loop.
final class FakeAPNsState: Sendable {
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

    /// The final answer for one request, decided under the lock.
    struct Decision {
        let response: FakeAPNsResponse
        let delayMilliseconds: Int
        let record: RecordedRequest?
    }

    private struct Shared {
        var scripts: [String: ScriptedResponse] = [:]
        var records: [RecordedRequest] = []
        var counters = FakeAPNsCounters()
        var policy: Policy
        var commands: [Command] = []
    }

    private let shared: Mutex<Shared>
    private let keepsRecords: Bool
    private let observer: (@Sendable (RecordedRequest) -> Void)?
    private let clock: any WallClock

    init(policy: Policy, keepsRecords: Bool, observer: (@Sendable (RecordedRequest) -> Void)?, clock: any WallClock) {
        shared = Mutex(Shared(policy: policy))
        self.keepsRecords = keepsRecords
        self.observer = observer
        self.clock = clock
    }

    // MARK: Callers

    func setScript(_ response: ScriptedResponse?, for token: String) { shared.withLock { $0.scripts[token] = response } }
    func clearScripts() { shared.withLock { $0.scripts.removeAll() } }
    func updatePolicy(_ change: (inout Policy) -> Void) { shared.withLock { change(&$0.policy) } }
    func enqueue(_ command: Command) { shared.withLock { $0.commands.append(command) } }
    var records: [RecordedRequest] { shared.withLock { $0.records } }
    func clearRecords() { shared.withLock { $0.records.removeAll() } }
    var counters: FakeAPNsCounters { shared.withLock { $0.counters } }

    // MARK: I/O loop

    var policy: Policy { shared.withLock { $0.policy } }
    func takeCommands() -> [Command] { shared.withLock { state in defer { state.commands.removeAll() }; return state.commands } }
    func count(_ change: (inout FakeAPNsCounters) -> Void) { shared.withLock { change(&$0.counters) } }

    /// Applies the token's script to a validated request, counts and records it.
    func decide(_ request: FakeAPNsRequest, verdict: APNsVerdict, apnsId: String) -> Decision {
        let decision = shared.withLock { state -> Decision in
            var status = verdict.status
            var reason = verdict.reason
            var delay = 0
            if status == 200, let token = verdict.deviceToken, let script = state.scripts[token] {
                status = script.status
                reason = script.reason
                delay = script.delayMilliseconds
            }
            state.counters.requests += 1
            state.counters.byStatus[status, default: 0] += 1
            var record: RecordedRequest?
            if keepsRecords || observer != nil {
                record = RecordedRequest(
                    method: request.method, path: request.path, headers: request.headers, payload: verdict.payload,
                    status: status, reason: reason, deviceToken: verdict.deviceToken, apnsId: apnsId)
                if keepsRecords { state.records.append(record!) }
            }
            let timestamp = status == 410 ? clock.nowMilliseconds : 0
            let response = FakeAPNsResponse(status: status, reason: reason, apnsId: apnsId, timestampMilliseconds: timestamp)
            return Decision(response: response, delayMilliseconds: delay, record: record)
        }
        if let observer, let record = decision.record { observer(record) }
        return decision
    }
}
