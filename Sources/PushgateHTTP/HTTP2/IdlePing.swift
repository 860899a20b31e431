/// Keep-alive for one connection: PING after an idle interval, dead when the PING goes unanswered.
///
/// - Important: HTTP/2 PING when idle (relay-protocol.md §7).
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
