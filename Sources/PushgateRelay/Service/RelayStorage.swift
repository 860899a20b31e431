import PushgateStore

/// The relay's durable state: the binding store (SQLite file, or PostgreSQL when
/// `DATABASE_URL` is set) and, with PostgreSQL, the replay set every relay instance shares.
///
/// - Important: relay-protocol.md §8 (`DATABASE_URL`) and §2 (a shared store shares the replay set).
struct RelayStorage: Sendable {
    let bindings: any BindingStore
    /// The shared replay set; `nil` with SQLite, where the service keeps one in memory.
    let sharedReplay: PostgreSQLReplaySet?

    /// Opens the store the configuration names, migrating its schema.
    static func open(_ configuration: RelayConfiguration) async throws -> RelayStorage {
        guard let url = configuration.databaseURL else {
            let bindings = try await SQLiteBindingStore.open(path: configuration.databasePath, maxTokens: configuration.maxTokens)
            return RelayStorage(bindings: bindings, sharedReplay: nil)
        }
        let bindings = try await PostgreSQLBindingStore.open(url: url, maxTokens: configuration.maxTokens)
        do {
            let replay = try await PostgreSQLReplaySet.open(url: url, ttlMs: configuration.replayMs,
                                                            maxEntries: configuration.maxReplayEntries)
            return RelayStorage(bindings: bindings, sharedReplay: replay)
        } catch {
            await bindings.close()
            throw error
        }
    }

    /// Finishes accepted writes and closes every connection.
    func close() async throws {
        await sharedReplay?.close()
        try await bindings.close()
    }
}
