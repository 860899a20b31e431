import PushgateCore
import Synchronization

/// What the fake APNs' I/O thread and its callers share about requests, behind one lock:
/// scripts, records and request counters (connections are ``FakeServerControl``'s).
final class FakeAPNsState: Sendable {
    /// The final answer for one request, decided under the lock.
    struct Decision {
        let response: FakeAPNsResponse
        let delayMilliseconds: Int
        let record: RecordedRequest?
    }

    private struct Shared {
        var scripts: [String: ScriptedResponse] = [:]
        var records: [RecordedRequest] = []
        var requests = 0
        var byStatus: [Int: Int] = [:]
    }

    private let shared: Mutex<Shared>
    private let keepsRecords: Bool
    private let observer: (@Sendable (RecordedRequest) -> Void)?
    private let clock: any WallClock

    init(keepsRecords: Bool, observer: (@Sendable (RecordedRequest) -> Void)?, clock: any WallClock) {
        shared = Mutex(Shared())
        self.keepsRecords = keepsRecords
        self.observer = observer
        self.clock = clock
    }

    // MARK: Callers

    func setScript(_ response: ScriptedResponse?, for token: String) { shared.withLock { $0.scripts[token] = response } }
    func clearScripts() { shared.withLock { $0.scripts.removeAll() } }
    var records: [RecordedRequest] { shared.withLock { $0.records } }
    func clearRecords() { shared.withLock { $0.records.removeAll() } }
    /// Requests decided so far, in all and by status.
    var requestCounts: (requests: Int, byStatus: [Int: Int]) { shared.withLock { ($0.requests, $0.byStatus) } }

    // MARK: I/O loop

    /// Applies the token's script to a validated request, counts and records it.
    func decide(_ request: FakeHTTP2Request, verdict: APNsVerdict, apnsId: String) -> Decision {
        let decision = shared.withLock { state -> Decision in
            var status = verdict.status
            var reason = verdict.reason
            var delay = 0
            if status == 200, let token = verdict.deviceToken, let script = state.scripts[token] {
                status = script.status
                reason = script.reason
                delay = script.delayMilliseconds
            }
            state.requests += 1
            state.byStatus[status, default: 0] += 1
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
