import PushgateProviders

/// When the gateway tries a window again whose delivery failed, and for how long
/// (docs/gateway.md "Coalescing and delivery").
enum GatewayRetryPolicy {
    /// A notification not delivered within this long after it was accepted is dropped as expired.
    static let lifetimeMs: Int64 = 3_600_000
    /// 1 s after the first failed attempt, doubling up to 5 min, plus jitter; a provider's
    /// `Retry-After` when that is longer.
    static let backOff = RetryBackOff(baseMs: 1_000, maxMs: 300_000)

    /// Whether a window whose attempt failed so is tried again: everything but a refusal. A push
    /// that may have reached the provider is sent again too, since every gateway push carries a
    /// collapse id (APNs `apns-collapse-id`, FCM `collapse_key` and `tag`), so a copy replaces
    /// itself on the phone. A throttle waits for its `Retry-After`: the relay's in-request
    /// retries leave it to the host, but the gateway has already answered its host.
    static func retries(after failure: ProviderFailure) -> Bool { failure != .rejected }

    /// The last retry is due this long before the hour of the window's newest notification
    /// ends, so a timer that fires a little late still finds it within its hour.
    static let lastTryLeadMs: Int64 = 1_000

    /// When a window is due again after its `attempts`-th failed attempt (1 for the first): the
    /// back-off from `nowMs`, but never past ``lastTryLeadMs`` before the expiry of its newest
    /// notification, so that every window ends within the lifetime of what it holds; `nil` when
    /// no further attempt fits in that lifetime.
    static func nextAttempt(after failure: ProviderFailure, attempts: Int, nowMs: Int64, newestAcceptedAt: Int64) -> Int64? {
        let delay = backOff.delayMs(retry: attempts - 1, retryAfterSeconds: failure.retryAfterSeconds)
        let dueAt = min(nowMs + delay, newestAcceptedAt + lifetimeMs - lastTryLeadMs)
        return dueAt > nowMs ? dueAt : nil
    }

    /// Whether a notification accepted at `acceptedAt` has outlived its lifetime at `nowMs`.
    static func hasExpired(acceptedAt: Int64, nowMs: Int64) -> Bool { nowMs - acceptedAt > lifetimeMs }
}
