/// Exponential back-off with jitter that gives way to a provider's `Retry-After`: the wait before
/// retry n (0-based) is `baseMs` × 2ⁿ, at most `maxMs`, plus up to half as much again; or the
/// `Retry-After` when that is longer. Shared by the relay's in-request retries (docs/relay.md
/// "Retries") and the gateway's outbox (docs/gateway.md "Coalescing and delivery").
struct RetryBackOff: Sendable {
    let baseMs: Int64
    let maxMs: Int64

    func delayMs(retry: Int, retryAfterSeconds: Int?) -> Int64 {
        var backOff = min(baseMs, maxMs)
        // Doubling stops at the cap, so it never overflows.
        for _ in 0 ..< max(0, retry) { backOff = backOff > maxMs / 2 ? maxMs : backOff * 2 }
        let jittered = backOff + Int64.random(in: 0...backOff / 2)
        return max(jittered, Int64(retryAfterSeconds ?? 0) * 1_000)
    }
}
