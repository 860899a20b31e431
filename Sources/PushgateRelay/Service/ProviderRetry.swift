import PushgateCore
import PushgateProviders

/// The relay's bounded retries of one push within one request (docs/relay.md "Retries"): at most
/// two more tries after 100 ms × 2ⁿ plus jitter, each started only when a whole provider deadline
/// still fits in the request's deadline. The caller takes an in-flight permit per try, so the
/// back-off holds none.
struct ProviderRetry: Sendable {
    /// Tries after the first.
    static let maxRetries = 2
    /// The back-off before the first retry; it doubles for the next.
    static let baseDelayMs: Int64 = 100

    /// How long the handling of one request may take (`REQUEST_DEADLINE_MS`).
    let requestDeadlineMs: Int64
    let clock: any MonotonicClock

    init(requestDeadlineMs: Int64, clock: any MonotonicClock = SystemMonotonicClock()) {
        self.requestDeadlineMs = requestDeadlineMs
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

    /// Runs `attempt` until it ends in anything but a retryable failure, the retries run out, or
    /// the next try could not finish before the request's deadline (counted from `startedAtMs`,
    /// with `attemptDeadlineMs` for one try). `failure` reads an outcome's failure, nil for a
    /// success or a final answer; `onRetry` hears of each retry (metrics).
    func run<Outcome: Sendable>(startedAtMs: Int64, attemptDeadlineMs: Int64, hasCollapseId: Bool,
                                attempt: () async -> Outcome, failure: (Outcome) -> ProviderFailure?,
                                onRetry: (Outcome) -> Void = { _ in }) async -> Outcome {
        var outcome = await attempt()
        for retry in 0..<Self.maxRetries {
            guard let failure = failure(outcome), Self.allows(failure, hasCollapseId: hasCollapseId) else { return outcome }
            let backOff = Self.baseDelayMs << retry
            let delay = backOff + Int64.random(in: 0...backOff / 2)
            guard clock.nowMilliseconds + delay + attemptDeadlineMs <= startedAtMs + requestDeadlineMs else { return outcome }
            onRetry(outcome)
            try? await Task.sleep(for: .milliseconds(delay))
            outcome = await attempt()
        }
        return outcome
    }
}
