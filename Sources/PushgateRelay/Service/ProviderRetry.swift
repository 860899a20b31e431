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
    /// 100 ms before the first retry, doubling for each next one.
    static let backOff = RetryBackOff(baseMs: 100, maxMs: 100 << (maxRetries - 1))

    /// How long the handling of one request may take (`REQUEST_DEADLINE_MS`).
    let requestDeadlineMs: Int64
    let limiter: InFlightLimiter
    let metrics: RelayMetrics
    let clock: any MonotonicClock

    init(requestDeadlineMs: Int64, limiter: InFlightLimiter, metrics: RelayMetrics, clock: any MonotonicClock = SystemMonotonicClock()) {
        self.requestDeadlineMs = requestDeadlineMs
        self.limiter = limiter
        self.metrics = metrics
        self.clock = clock
    }

    /// Whether a push that failed so is worth another try now. A push that may have reached the
    /// provider is sent again only when a copy replaces itself on the phone (an APNs collapse
    /// id); a throttle or a refusal is left to the host.
    static func allows(_ failure: ProviderFailure, replacesDuplicates: Bool) -> Bool {
        switch failure {
        case .unavailable, .notSent: true
        case .unanswered: replacesDuplicates
        case .throttled, .rejected: false
        }
    }

    /// Runs `attempt` under an in-flight permit until it ends in anything but a retryable
    /// failure, the retries run out, or the next try could not finish before the request's
    /// deadline (counted from `startedAtMs`, with `attemptTimeoutMs` for one try, checked again
    /// once the permit is held). Nil when the first try found the in-flight limiter full: a local
    /// overload is not retried; a retry that finds it full leaves the last answer standing.
    func run<Outcome: ProviderAttemptOutcome>(startedAtMs: Int64, attemptTimeoutMs: Int64, replacesDuplicates: Bool,
                                              attempt: () async -> Outcome) async -> Outcome? {
        let deadline = startedAtMs + requestDeadlineMs
        guard var outcome = await limiter.withPermit(attempt) else { return nil }
        for retry in 0..<Self.maxRetries {
            guard let failure = outcome.failure, Self.allows(failure.kind, replacesDuplicates: replacesDuplicates) else { break }
            let delay = Self.backOff.delayMs(retry: retry, retryAfterSeconds: failure.kind.retryAfterSeconds)
            guard clock.nowMilliseconds + delay + attemptTimeoutMs <= deadline else { break }
            metrics.retry(reason: failure.reason)
            do { try await Task.sleep(for: .milliseconds(delay)) } catch { break }  // the caller went away
            let previous = outcome
            outcome = await limiter.withPermit {
                // The wait for a permit may have used up the time a try needs.
                guard clock.nowMilliseconds + attemptTimeoutMs <= deadline else { return previous }
                return await attempt()
            } ?? previous
        }
        return outcome
    }
}
