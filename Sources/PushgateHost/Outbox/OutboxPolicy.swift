import PushgateCore

/// How long and how much the outbox keeps, and when an entry is tried again (docs/host.md, "Outbox").
///
/// The n-th retry waits 1 s × 2ⁿ⁻¹, at most 5 minutes, less up to half as jitter so that
/// entries that failed together do not come back together; a longer `Retry-After` wins. An
/// entry whose next try would fall after its deadline is over instead.
public struct OutboxPolicy: Sendable {
    /// The wait before the first retry, before jitter.
    public static let firstRetryMs: Int64 = 1_000
    /// The longest wait between two tries.
    public static let longestWaitMs: Int64 = 300_000
    /// `PUSHGATE_OUTBOX_DEADLINE_SECONDS` when unset.
    public static let defaultDeadlineSeconds = 3_600
    /// `PUSHGATE_OUTBOX_MAX` when unset.
    public static let defaultMaxEntries = 100_000

    /// How long after its first try an entry is given up, in milliseconds.
    public let deadlineMs: Int64
    /// The most entries the outbox holds.
    public let maxEntries: Int

    public init(deadlineSeconds: Int = OutboxPolicy.defaultDeadlineSeconds, maxEntries: Int = OutboxPolicy.defaultMaxEntries) {
        deadlineMs = Int64(deadlineSeconds) * 1_000
        self.maxEntries = maxEntries
    }

    /// When the try after `attempts` tries is due, or nil when it would fall after the deadline.
    /// `jitter` is in 0...1 (random in use, fixed in tests).
    public func nextAttempt(afterAttempts attempts: Int, createdAtMs: Int64, nowMs: Int64, retryAfterSeconds: Int?,
                            jitter: Double = Double.random(in: 0...1)) -> Int64? {
        let doubling = Self.firstRetryMs << Int64(min(max(attempts - 1, 0), 20))
        let backOff = min(doubling, Self.longestWaitMs)
        let wait = max(backOff - Int64(Double(backOff / 2) * jitter), Int64(retryAfterSeconds ?? 0) * 1_000)
        let due = nowMs + wait
        return due - createdAtMs > deadlineMs ? nil : due
    }
}
