/// What recording a replay key found.
public enum ReplayOutcome: Sendable, Equatable {
    /// First sighting (or the earlier one expired); the key is now remembered.
    case fresh
    /// Seen before, within the time to live.
    case replay
    /// No room for another key.
    case full
}

/// Where the relay remembers the keys of the requests it accepted, so that a captured request
/// cannot be used twice.
///
/// - Important: relay-protocol.md §2 (replay): keys live `replayMs`; at `maxReplayEntries` live
///   keys a new key is refused; with a shared store (PostgreSQL) every relay instance sees
///   every other's keys.
public protocol ReplayKeyStore: Sendable {
    /// Records `key` if it is new (or its earlier sighting expired) and there is room.
    func record(_ key: String, nowMs: Int64) async throws -> ReplayOutcome

    /// Forgets `key`, so a request whose work failed can be retried with the same signature.
    func forget(_ key: String) async throws

    /// Drops the keys expired at `nowMs`.
    func purge(nowMs: Int64) async throws

    /// How many keys are held; expired keys count until they are purged.
    func keyCount() async throws -> Int
}
