import PushgateCore
import PushgateStore
import Synchronization

/// Remembers request keys for `ttlMs` in this process, so a captured request cannot be used
/// twice (the relay's replay set with a SQLite store).
///
/// - Important: the key uses the low-S form of the signature so a high-S twin is a replay too;
///   at `maxEntries` live keys a new key is refused (relay-protocol.md §2).
public final class ReplaySet: ReplayKeyStore {
    /// What ``record(_:nowMs:)`` found.
    public typealias Outcome = ReplayOutcome

    /// The first 128 bits of a key's SHA-256: a fixed 16 bytes per key instead of the ~150-byte
    /// key text, and still collision-free for keys an attacker chooses (2^64 work for a birthday pair).
    fileprivate struct Digest: Hashable {
        let high: UInt64
        let low: UInt64

        init(_ key: String) {
            let hash = SHA256.hash(Array(key.utf8))
            var high: UInt64 = 0, low: UInt64 = 0
            for index in 0..<8 {
                high = high << 8 | UInt64(hash[index])
                low = low << 8 | UInt64(hash[8 + index])
            }
            self.high = high
            self.low = low
        }
    }

    fileprivate struct State {
        var expiry: [Digest: Int64] = [:]
        /// Keys in insertion order; expiry times rise with it because `nowMs` does.
        var queue: [(key: Digest, expiresAt: Int64)] = []
        var head = 0
    }

    private let ttlMs: Int64
    private let maxEntries: Int
    fileprivate let state = Mutex(State())

    public init(ttlMs: Int64, maxEntries: Int) {
        self.ttlMs = ttlMs
        self.maxEntries = maxEntries
    }

    /// Records `key` if it is new and there is room.
    public func record(_ text: String, nowMs: Int64) -> Outcome {
        let key = Digest(text)
        return state.withLock { state in
            Self.purge(&state, nowMs: nowMs)
            if let expiresAt = state.expiry[key], expiresAt > nowMs { return .replay }
            guard state.expiry.count < maxEntries else { return .full }
            let expiresAt = nowMs + ttlMs
            state.expiry[key] = expiresAt
            state.queue.append((key, expiresAt))
            return .fresh
        }
    }

    /// Drops expired keys; run from the scheduler so memory shrinks when idle.
    public func purge(nowMs: Int64) { state.withLock { Self.purge(&$0, nowMs: nowMs) } }

    /// The number of live keys.
    public var count: Int { state.withLock { $0.expiry.count } }

    private static func purge(_ state: inout State, nowMs: Int64) {
        while state.head < state.queue.count, state.queue[state.head].expiresAt <= nowMs {
            let entry = state.queue[state.head]
            if state.expiry[entry.key] == entry.expiresAt { state.expiry[entry.key] = nil }
            state.head += 1
        }
        if state.head > 1_024, state.head * 2 > state.queue.count {
            state.queue.removeFirst(state.head)
            state.head = 0
        }
    }
}

extension ReplaySet {
    /// Forgets `key`, so a request whose work failed can be retried with the same signature.
    public func forget(_ key: String) {
        let digest = Digest(key)
        state.withLock { _ = $0.expiry.removeValue(forKey: digest) }
    }

    public func keyCount() -> Int { count }
}
