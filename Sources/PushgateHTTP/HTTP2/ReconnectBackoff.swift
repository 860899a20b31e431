/// When the next connection attempt to an origin may start: exponential delay after failures.
///
/// - Important: never reconnect in a tight loop (relay-protocol.md §7).
struct ReconnectBackoff {
    let baseDelay: Int64
    let maxDelay: Int64
    private(set) var consecutiveFailures = 0
    /// The earliest time (ms) a new attempt may start.
    private(set) var notBefore: Int64 = 0

    init(baseDelay: Int64, maxDelay: Int64) {
        self.baseDelay = max(1, baseDelay)
        self.maxDelay = max(self.baseDelay, maxDelay)
    }

    /// A connection failed before it served anything: wait base × 2^(failures−1), capped.
    mutating func recordFailure(now: Int64) {
        consecutiveFailures += 1
        let shift = min(consecutiveFailures - 1, 40)
        let delay = baseDelay > (maxDelay >> shift) ? maxDelay : min(maxDelay, baseDelay << shift)
        notBefore = now + delay
    }

    /// A connection served a response: the next attempt may start at once.
    mutating func recordSuccess() {
        consecutiveFailures = 0
        notBefore = 0
    }

    func allowsAttempt(now: Int64) -> Bool { now >= notBefore }
}
