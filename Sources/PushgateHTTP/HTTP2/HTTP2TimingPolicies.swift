/// The two timing policies of a connection and an origin: keep-alive PING and reconnect back-off.
/// Times are milliseconds of the pool's monotonic clock.

/// Keep-alive for one connection: PING after an idle interval, dead when the PING goes unanswered.
///
/// - Important: HTTP/2 PING when idle (docs/concurrency.md, "The HTTP/2 client inside").
struct IdlePing {
    enum Action: Equatable { case none, sendPing, dead }

    let interval: Int64
    let timeout: Int64
    private(set) var lastActivity: Int64
    private(set) var pingSentAt: Int64?

    init(interval: Int64, timeout: Int64, now: Int64) {
        self.interval = max(1, interval)
        self.timeout = max(1, timeout)
        self.lastActivity = now
    }

    /// Bytes arrived from the peer: it is alive.
    mutating func received(now: Int64) {
        lastActivity = now
        pingSentAt = nil
    }

    /// What to do at `now`.
    mutating func tick(now: Int64) -> Action {
        if let sent = pingSentAt { return now - sent >= timeout ? .dead : .none }
        guard now - lastActivity >= interval else { return .none }
        pingSentAt = now
        return .sendPing
    }

    /// When ``tick(now:)`` next has something to do.
    var nextDue: Int64 { pingSentAt.map { $0 + timeout } ?? lastActivity + interval }
}

extension IdlePing {
    init(configuration: HTTP2ClientConfiguration, now: Int64) {
        self.init(interval: configuration.idlePingIntervalMilliseconds, timeout: configuration.pingTimeoutMilliseconds, now: now)
    }
}

/// When the next connection attempt to an origin may start: exponential delay after failures.
///
/// - Important: never reconnect in a tight loop (docs/concurrency.md, "The HTTP/2 client inside").
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

extension ReconnectBackoff {
    init(configuration: HTTP2ClientConfiguration) {
        self.init(baseDelay: configuration.reconnectBaseDelayMilliseconds, maxDelay: configuration.reconnectMaxDelayMilliseconds)
    }
}
