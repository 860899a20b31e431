import PushgateCore
import Synchronization

/// The gateway's aggregate counters: totals for `/metrics`, and once a minute the change since
/// the last line as one JSON log line (skipped when nothing changed).
///
/// - Important: protocol/gateway.md §10 — counters only; no token, title, body, id, fingerprint or key.
final class GatewayCounters: Sendable {
    /// Every counter, in the order of §10, then Pushgate's own.
    enum Event: String, CaseIterable, Sendable {
        case challengeIssued = "challenge_issued", challengeRejected = "challenge_rejected"
        case sessionIssued = "session_issued", sessionRejected = "session_rejected"
        case deviceRegistered = "device_registered", deviceRejected = "device_rejected", deviceDeleted = "device_deleted"
        case sendQueued = "send_queued", sendDead = "send_dead", sendRateLimited = "send_rate_limited", sendError = "send_error"
        case deliverySent = "delivery_sent", deliveryDead = "delivery_dead", deliveryError = "delivery_error"
        case ipRateLimited = "ip_rate_limited", requestError = "request_error"
        /// Pushgate's growth guards (docs/gateway.md "Growth"): sessions refused to a host not stored yet.
        case newHostRateLimited = "new_host_rate_limited", hostLimitRefused = "host_limit_refused"
        /// Pushgate's outbox (docs/gateway.md "Coalescing and delivery"): notifications dropped
        /// undelivered an hour after they were accepted.
        case deliveryExpired = "delivery_expired"
    }

    private struct State {
        var totals: [Event: Int] = [:]
        var lastLine: [Event: Int] = [:]
    }

    private let state = Mutex(State())

    func count(_ event: Event, by amount: Int = 1) {
        guard amount > 0 else { return }
        state.withLock { $0.totals[event, default: 0] += amount }
    }

    /// The total of one counter since start.
    func total(_ event: Event) -> Int { state.withLock { $0.totals[event] ?? 0 } }

    /// The minute line: `{"challenge_issued":…,…}` with the changes since the previous line, or
    /// `nil` when every change is zero.
    func minuteLine() -> String? {
        let changes = state.withLock { state -> [Event: Int] in
            var changes = state.totals
            for (event, value) in state.lastLine { changes[event, default: 0] -= value }
            state.lastLine = state.totals
            return changes
        }
        guard changes.values.contains(where: { $0 != 0 }) else { return nil }
        return JSONValue.object(JSONObject(Event.allCases.map { ($0.rawValue, .integer(Int64(changes[$0] ?? 0))) })).serialized()
    }

    /// Prometheus text: `pushgate_gateway_events_total{event="…"} N` for every counter.
    func render() -> String {
        let totals = state.withLock { $0.totals }
        var text = "# TYPE pushgate_gateway_events_total counter\n"
        for event in Event.allCases {
            text += "pushgate_gateway_events_total{event=\"\(event.rawValue)\"} \(totals[event] ?? 0)\n"
        }
        return text
    }
}
