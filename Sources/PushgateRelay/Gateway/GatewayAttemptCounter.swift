import Synchronization

/// `pushgate_gateway_delivery_attempts_total{outcome}`: every attempt at a window, by what came
/// of it — `sent`, `dead`, `rejected` (refused for good), or the passing failure after which it
/// is tried again (`unavailable`, `not_sent`, `unanswered`, `throttled`).
final class GatewayAttemptCounter: Sendable {
    enum Outcome: String, CaseIterable, Sendable {
        case sent, dead, rejected, unavailable, notSent = "not_sent", unanswered, throttled

        init(_ outcome: GatewayDeliverer.Outcome) {
            switch outcome {
            case .sent: self = .sent
            case .dead: self = .dead
            case .failed(_, .rejected): self = .rejected
            case .failed(_, .unavailable): self = .unavailable
            case .failed(_, .notSent): self = .notSent
            case .failed(_, .unanswered): self = .unanswered
            case .failed(_, .throttled): self = .throttled
            }
        }
    }

    private let totals = Mutex([Outcome: Int]())

    func count(_ outcome: GatewayDeliverer.Outcome) {
        totals.withLock { $0[Outcome(outcome), default: 0] += 1 }
    }

    /// Attempts so far that ended so.
    func total(_ outcome: Outcome) -> Int { totals.withLock { $0[outcome] ?? 0 } }

    /// Prometheus text, every outcome (zeros too).
    func render() -> String {
        let totals = totals.withLock { $0 }
        var text = "# TYPE pushgate_gateway_delivery_attempts_total counter\n"
        for outcome in Outcome.allCases {
            text += "pushgate_gateway_delivery_attempts_total{outcome=\"\(outcome.rawValue)\"} \(totals[outcome] ?? 0)\n"
        }
        return text
    }
}
