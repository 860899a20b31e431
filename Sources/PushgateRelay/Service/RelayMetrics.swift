import Synchronization

/// Counters and gauges for `GET /metrics`, in Prometheus text format.
///
/// - Important: labels are route names, status codes, error codes and provider reasons only —
///   never a token, key, title or body (protocol/signed-relay.md §6, §9).
public final class RelayMetrics: Sendable {
    private struct Counters {
        var requests: [String: Int] = [:]
        var provider: [String: Int] = [:]
        var retries: [String: Int] = [:]
    }

    private let counters = Mutex(Counters())

    public init() {}

    /// Counts one answered request: `route` name and `outcome` (`ok` or an error code).
    public func request(route: String, status: Int, outcome: String) {
        let key = "route=\"\(route)\",status=\"\(status)\",outcome=\"\(outcome)\""
        counters.withLock { $0.requests[key, default: 0] += 1 }
    }

    /// Counts one provider result: `result` is delivered, dead, transient, unbound or refused.
    public func provider(result: String, reason: String) {
        let key = "result=\"\(result)\",reason=\"\(Self.label(reason))\""
        counters.withLock { $0.provider[key, default: 0] += 1 }
    }

    /// Counts one retry of a push after a transient failure with `reason`.
    public func retry(reason: String) {
        let key = "reason=\"\(Self.label(reason))\""
        counters.withLock { $0.retries[key, default: 0] += 1 }
    }

    /// Requests answered so far with `route` and `status` (tests and diagnostics).
    func requestCount(route: String, status: Int) -> Int {
        counters.withLock { $0.requests.filter { $0.key.hasPrefix("route=\"\(route)\",status=\"\(status)\"") }.values.reduce(0, +) }
    }

    /// The exposition text, with the gauges read at call time.
    public func render(inFlight: Int, inFlightLimit: Int, replayEntries: Int?, replayRefusals: Int, bindings: Int?) -> String {
        let snapshot = counters.withLock { $0 }
        var text = "# TYPE pushgate_relay_requests_total counter\n"
        for (labels, value) in snapshot.requests.sorted(by: { $0.key < $1.key }) {
            text += "pushgate_relay_requests_total{\(labels)} \(value)\n"
        }
        text += "# TYPE pushgate_relay_provider_results_total counter\n"
        for (labels, value) in snapshot.provider.sorted(by: { $0.key < $1.key }) {
            text += "pushgate_relay_provider_results_total{\(labels)} \(value)\n"
        }
        text += "# TYPE pushgate_relay_provider_retries_total counter\n"
        for (labels, value) in snapshot.retries.sorted(by: { $0.key < $1.key }) {
            text += "pushgate_relay_provider_retries_total{\(labels)} \(value)\n"
        }
        text += "# TYPE pushgate_relay_in_flight gauge\npushgate_relay_in_flight \(inFlight)\n"
        // The limit beside the count, so a saturation alert needs no copy of the setting.
        text += "# TYPE pushgate_relay_in_flight_limit gauge\npushgate_relay_in_flight_limit \(inFlightLimit)\n"
        if let replayEntries {
            text += "# TYPE pushgate_relay_replay_entries gauge\npushgate_relay_replay_entries \(replayEntries)\n"
        }
        text += "# TYPE pushgate_relay_replay_ceiling_refusals_total counter\n"
        text += "pushgate_relay_replay_ceiling_refusals_total \(replayRefusals)\n"
        if let bindings {
            text += "# TYPE pushgate_relay_bound_tokens gauge\npushgate_relay_bound_tokens \(bindings)\n"
        }
        return text
    }

    /// Provider reasons come from the remote side: keep label text to a safe alphabet.
    private static func label(_ text: String) -> String {
        String(text.unicodeScalars.prefix(64).map { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" ? Character(scalar) : "_"
        })
    }
}
