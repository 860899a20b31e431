import PushgateCore
import PushgateProviders

/// A provider's answer to one try, as the relay's retries read it.
protocol ProviderAttemptOutcome: Sendable {
    /// Why the try failed, with its reason for metrics; nil for a success or a dead token.
    var failure: (reason: String, kind: ProviderFailure)? { get }
}

extension APNsOutcome: ProviderAttemptOutcome {
    var failure: (reason: String, kind: ProviderFailure)? {
        guard case .transient(let reason, let failure) = self else { return nil }
        return (reason, failure)
    }
}

extension HapiPushOutcome: ProviderAttemptOutcome {
    var failure: (reason: String, kind: ProviderFailure)? {
        guard case .failed(let reason, let failure) = self else { return nil }
        return (reason, failure)
    }
}

/// The relay's bounded retries of one push within one request (docs/relay.md "Retries"): at most
/// two more tries after 100 ms × 2ⁿ plus jitter, each started only when a whole provider deadline
/// still fits in the request's deadline. Each try takes its own in-flight permit, so the
/// back-off holds none.
struct ProviderRetry: Sendable {
    /// Tries after the first.
    static let maxRetries = 2
    /// The back-off before the first retry; it doubles for the next.
    static let baseDelayMs: Int64 = 100

    /// How long the handling of one request may take (`REQUEST_DEADLINE_MS`).
    let requestDeadlineMs: Int64
    let gate: InFlightGate
    let metrics: RelayMetrics
    let clock: any MonotonicClock

    init(requestDeadlineMs: Int64, gate: InFlightGate, metrics: RelayMetrics, clock: any MonotonicClock = SystemMonotonicClock()) {
        self.requestDeadlineMs = requestDeadlineMs
        self.gate = gate
        self.metrics = metrics
        self.clock = clock
    }

    /// Whether a push that failed so is worth another try now. A push that may have reached the
    /// provider is sent again only with a collapse id, which makes a duplicate replace itself on
    /// the phone; a throttle or a refusal is left to the host.
    static func allows(_ failure: ProviderFailure, hasCollapseId: Bool) -> Bool {
        switch failure {
        case .unavailable, .notSent: true
        case .unanswered: hasCollapseId
        case .throttled, .rejected: false
        }
    }

    /// Runs `attempt` under an in-flight permit until it ends in anything but a retryable
    /// failure, the retries run out, or the next try could not finish before the request's
    /// deadline (counted from `startedAtMs`, with `attemptDeadlineMs` for one try). Nil when a
    /// try found the in-flight gate full: a local overload is not retried.
    func run<Outcome: ProviderAttemptOutcome>(startedAtMs: Int64, attemptDeadlineMs: Int64, hasCollapseId: Bool,
                                              attempt: () async -> Outcome) async -> Outcome? {
        guard var outcome = await gate.withPermit(attempt) else { return nil }
        for retry in 0..<Self.maxRetries {
            guard let failure = outcome.failure, Self.allows(failure.kind, hasCollapseId: hasCollapseId) else { return outcome }
            let backOff = Self.baseDelayMs << retry
            let delay = backOff + Int64.random(in: 0...backOff / 2)
            guard clock.nowMilliseconds + delay + attemptDeadlineMs <= startedAtMs + requestDeadlineMs else { return outcome }
            metrics.retry(reason: failure.reason)
            try? await Task.sleep(for: .milliseconds(delay))
            guard let next = await gate.withPermit(attempt) else { return nil }
            outcome = next
        }
        return outcome
    }
}
