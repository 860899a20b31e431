/// Which relay process holds an outbox row's window in memory: a random key per opened gateway
/// store, written into every row it queues.
///
/// On PostgreSQL each of the store's sessions takes `pg_advisory_lock_shared(key)` when it
/// connects (and again on every reconnect) and keeps it for its life, so the key can be locked
/// exclusively exactly when every session of that process has ended; a relay takes over the
/// rows of such a holder. That can happen to a running relay whose sessions were all dropped,
/// so claims, deletes and postpones name the holder and never touch rows taken over from it.
/// A SQLite file serves one relay process at a time, so there any other holder is an earlier run.
enum GatewayOutboxHolder {
    /// Above the int4 range that the per-host locks' `hashtext` keys fall in, so the two never meet.
    static func random() -> Int64 { Int64.random(in: (1 << 32) ... Int64.max) }

    /// The session statement that marks `holder` as alive on PostgreSQL.
    static func sessionLock(_ holder: Int64) -> String { "SELECT pg_advisory_lock_shared(\(holder))" }
}
