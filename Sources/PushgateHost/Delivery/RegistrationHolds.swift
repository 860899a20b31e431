import PushgateCore
import Synchronization

/// Tokens the host does not register on the relay again by itself for a while: one whose
/// binding it just repaired, or one the relay refused with `binding_limit`. Kept in memory
/// only: a restart costs at most one registration more.
///
/// - Important: docs/host.md "Lost and aging bindings" — a lost binding is registered again at most once per token
///   per ``holdMs``, and a `binding_limit` refusal is not retried before then.
final class RegistrationHolds: Sendable {
    /// How long a held token is left alone.
    static let holdMs: Int64 = 10 * 60 * 1_000

    private let clock: any WallClock
    /// Token → when its hold ends (wall clock).
    private let holds = Mutex<[String: Int64]>([:])

    init(clock: any WallClock) { self.clock = clock }

    /// Those of `tokens` that are held now.
    func held(among tokens: [String]) -> Set<String> {
        let now = clock.nowMilliseconds
        return holds.withLock { holds in
            guard !holds.isEmpty else { return [] }
            return Set(tokens.filter { token in holds[token].map { $0 > now } ?? false })
        }
    }

    /// Those of `tokens` that are not held, each held from now on (the caller registers them).
    func claim(_ tokens: [String]) -> [String] {
        let now = clock.nowMilliseconds
        return holds.withLock { holds in
            Self.prune(&holds, now: now)
            let free = tokens.filter { holds[$0] == nil }
            for token in free { holds[token] = now + Self.holdMs }
            return free
        }
    }

    /// Holds `token` from now on.
    func hold(_ token: String) {
        let now = clock.nowMilliseconds
        holds.withLock { holds in
            Self.prune(&holds, now: now)
            holds[token] = now + Self.holdMs
        }
    }

    /// Forgets holds that ended, so the table only holds tokens of the last ``holdMs``.
    private static func prune(_ holds: inout [String: Int64], now: Int64) {
        holds = holds.filter { $0.value > now }
    }
}
