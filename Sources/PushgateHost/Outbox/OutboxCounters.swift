import Synchronization

/// The outbox's counters since start, for `/api/status` and the host's metrics.
public final class OutboxCounters: Sendable {
    public struct Counts: Sendable, Equatable {
        /// Entries written.
        public var queued = 0
        /// Tries made from the outbox.
        public var retries = 0
        /// Entries finished by an accepted push.
        public var delivered = 0
        /// Entries finished because the provider said the token is dead.
        public var dead = 0
        /// Entries given up at their deadline.
        public var expired = 0
        /// Entries dropped over `PUSHGATE_OUTBOX_MAX`.
        public var evicted = 0
        /// Entries whose push was refused (not worth another try).
        public var failed = 0

        /// Name and value of each count, in a fixed order.
        public var all: [(String, Int)] {
            [("queued", queued), ("retries", retries), ("delivered", delivered), ("dead", dead), ("expired", expired),
             ("evicted", evicted), ("failed", failed)]
        }
    }

    private let counts = Mutex(Counts())

    public var current: Counts { counts.withLock { $0 } }

    func add(_ change: (inout Counts) -> Void) { counts.withLock { change(&$0) } }
}
