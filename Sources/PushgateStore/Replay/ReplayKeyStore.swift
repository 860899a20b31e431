/// The replay keys every relay instance on one PostgreSQL database shares, so a request one
/// instance accepted is a replay at every other.
///
/// - Important: docs/relay.md "Replay set": a key lives until its request's
///   `ts + TIMESTAMP_SKEW_MS + 1 s`, so it outlives the request's freshness.
public protocol ReplayKeyStore: Sendable {
    /// Whether a live key `digest` is held.
    func contains(_ digest: ReplayDigest, nowMs: Int64) async throws -> Bool

    /// Inserts `digest`; `false` when it was there already (another instance, or a concurrent
    /// request, recorded it first).
    func insert(_ digest: ReplayDigest, expiresAtMs: Int64) async throws -> Bool

    /// Forgets `digest`, so a request whose work failed can be retried with the same signature.
    func forget(_ digest: ReplayDigest) async throws

    /// Drops the keys expired at `nowMs`.
    func purge(nowMs: Int64) async throws

    /// How many keys are held; expired keys count until they are purged.
    func keyCount() async throws -> Int
}
