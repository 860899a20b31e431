import PushgateCore
import Synchronization

/// The trailing debounce of permission notifications, driven by the pending-request list each
/// `permission` or `question` event carries.
///
/// - Important: protocol/hapi-push.md §9 (`permission-request`) — the list's ids are compared with the
///   ids known from the previous update and replace them; a new id (re)starts the session's
///   500 ms timer; when it fires, the newest list's first request is notified. An empty list
///   cancels the timer and sends nothing (issue item 0), as does a list with no request left
///   (Pushgate decision).
final class PendingRequestDebounce: Sendable {
    /// What a submitted event did.
    enum Decision: Equatable {
        /// A timer is running; the notification, if any, leaves when it fires.
        case debounced
        /// No new request and no timer running: nothing to send.
        case unchanged
        /// The list was empty: any timer was cancelled.
        case cancelled
    }

    /// The debounce delay.
    static let delayMs: Int64 = 500
    /// Sessions remembered at most; idle ones are forgotten first.
    static let maxSessions = 1_024

    private struct Session {
        var known: Set<String> = []
        var latest: HostEvent?
        var job: (any ScheduledJob)?
        var generation = 0
    }

    private let scheduler: any Scheduler
    private let fire: @Sendable (HostEvent) -> Void
    private let sessions = Mutex<[String: Session]>([:])

    /// `fire` gets the newest event of a session when its timer fires (on the scheduler's queue).
    init(scheduler: any Scheduler, fire: @escaping @Sendable (HostEvent) -> Void) {
        self.scheduler = scheduler
        self.fire = fire
    }

    /// Takes an event whose `pendingRequests` is set.
    func submit(_ event: HostEvent) -> Decision {
        let ids = (event.pendingRequests ?? []).map(\.id)
        let sessionId = event.sessionId
        return sessions.withLock { sessions in
            if sessions[sessionId] == nil && sessions.count >= Self.maxSessions {
                sessions = sessions.filter { $0.value.job != nil }
            }
            var session = sessions[sessionId] ?? Session()
            defer { sessions[sessionId] = session }
            let hasNew = ids.contains { !session.known.contains($0) }
            session.known = Set(ids)
            guard !ids.isEmpty else {
                session.job?.cancel()
                session.job = nil
                session.latest = nil
                return .cancelled
            }
            session.latest = event
            guard hasNew else { return session.job == nil ? .unchanged : .debounced }
            session.job?.cancel()
            session.generation += 1
            let generation = session.generation
            session.job = scheduler.schedule(afterMs: Self.delayMs) { [weak self] in self?.timerFired(sessionId, generation) }
            return .debounced
        }
    }

    /// A `resolved` event answered `requestId` (every request of the session, when nil) before
    /// it was sent: it leaves the newest list, and the timer stops once nothing is left to
    /// notify; a request still pending is notified when the timer fires, as before.
    func cancel(sessionId: String, requestId: String?) {
        sessions.withLock { sessions in
            guard var session = sessions[sessionId], var latest = session.latest else { return }
            if let requestId {
                latest.pendingRequests?.removeAll { $0.id == requestId }
                if latest.requestId == requestId { latest.requestId = nil }
            } else {
                latest.pendingRequests = []
            }
            if latest.pendingRequests?.isEmpty ?? true {
                session.job?.cancel()
                session.job = nil
                session.latest = nil
            } else {
                session.latest = latest
            }
            sessions[sessionId] = session
        }
    }

    private func timerFired(_ sessionId: String, _ generation: Int) {
        let event = sessions.withLock { sessions -> HostEvent? in
            guard var session = sessions[sessionId], session.generation == generation else { return nil }
            let latest = session.latest
            session.job = nil
            session.latest = nil
            sessions[sessionId] = session
            return latest
        }
        guard var event, let first = event.pendingRequests?.first else { return }
        if event.requestId?.isEmpty ?? true { event.requestId = first.id }
        fire(event)
    }
}
