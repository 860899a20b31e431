import PushgateCore
import Synchronization

/// The sessions a desktop reports it shows (`POST /api/push/visibility` with `client:"desktop"`).
/// While a report holds, the session's `active` and `passive` alerts are not sent: the user is
/// looking at the session. Time-sensitive ones still are: a prompt must reach the phone of a
/// user who walked away from the desk (docs/host.md, "Desktop presence").
final class DesktopPresence: Sendable {
    /// `PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS` when unset.
    static let defaultTTLSeconds = 60
    /// Sessions remembered at once; beyond, the report that lapses soonest makes way.
    static let maxSessions = 10_000

    /// How long one report holds unless refreshed.
    let ttlMs: Int64
    private let clock: any WallClock
    /// When each reported session's report lapses (ms).
    private let visibleUntil = Mutex<[String: Int64]>([:])

    init(ttlSeconds: Int, clock: any WallClock) {
        ttlMs = Int64(ttlSeconds) * 1_000
        self.clock = clock
    }

    /// A desktop shows `sessionId` (for the next TTL), or stopped showing it.
    func report(sessionId: String, visible: Bool) {
        let nowMs = clock.nowMilliseconds
        visibleUntil.withLock { sessions in
            guard visible else {
                sessions[sessionId] = nil
                return
            }
            if sessions[sessionId] == nil, sessions.count >= Self.maxSessions {
                sessions = sessions.filter { $0.value > nowMs }
                if sessions.count >= Self.maxSessions, let soonest = sessions.min(by: { $0.value < $1.value }) {
                    sessions[soonest.key] = nil
                }
            }
            sessions[sessionId] = nowMs + ttlMs
        }
    }

    /// Whether `event` is not sent because a desktop shows its session: an `active` or `passive`
    /// type (by the type itself, whatever `PUSHGATE_TIME_SENSITIVE` says) other than `resolved`,
    /// whose replacement banner must still take a prompt's place.
    func suppresses(_ event: HostEvent) -> Bool {
        guard event.type != .resolved, event.type.attention.level != .timeSensitive else { return false }
        let nowMs = clock.nowMilliseconds
        return visibleUntil.withLock { sessions in
            guard let until = sessions[event.sessionId] else { return false }
            if until > nowMs { return true }
            sessions[event.sessionId] = nil
            return false
        }
    }
}
