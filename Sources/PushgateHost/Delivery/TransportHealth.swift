import PushgateCore
import Synchronization

/// How the iOS transport has been doing, for `GET /api/status` (protocol/host-api.md §2: "transports and
/// their health").
///
/// A delivery round counts as a success when any token was accepted, and as a failure when
/// tokens were meant to leave and none did (dropped tokens are answers, not failures).
public final class TransportHealth: Sendable {
    private struct State {
        var lastSuccessMs: Int64?
        var lastFailureMs: Int64?
        var consecutiveFailures = 0
    }

    private let clock: any WallClock
    private let state = Mutex(State())

    public init(clock: any WallClock) { self.clock = clock }

    /// Records one delivery round.
    func record(accepted: Int, failed: Int) {
        let now = clock.nowMilliseconds
        state.withLock { state in
            if accepted > 0 {
                state.lastSuccessMs = now
                state.consecutiveFailures = 0
            } else if failed > 0 {
                state.lastFailureMs = now
                state.consecutiveFailures += 1
            }
        }
    }

    /// `{state, lastSuccessAt, lastFailureAt, consecutiveFailures}`; `state` is `unknown` before
    /// the first round, `failing` after a failed round, else `ok`.
    public var json: JSONValue {
        let snapshot = state.withLock { $0 }
        let label = snapshot.consecutiveFailures > 0 ? "failing" : (snapshot.lastSuccessMs == nil ? "unknown" : "ok")
        return .object(JSONObject([
            ("state", .string(label)),
            ("lastSuccessAt", snapshot.lastSuccessMs.map { .integer($0) } ?? .null),
            ("lastFailureAt", snapshot.lastFailureMs.map { .integer($0) } ?? .null),
            ("consecutiveFailures", .integer(Int64(snapshot.consecutiveFailures))),
        ]))
    }
}
