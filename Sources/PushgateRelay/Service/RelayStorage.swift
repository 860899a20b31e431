import PushgateCore
import PushgateStore

/// The relay's durable state: the binding store (SQLite file, or PostgreSQL when
/// `DATABASE_URL` is set) and the replay set, whose keys outlive a restart: in a journal beside
/// the SQLite file, or in the database every PostgreSQL relay shares.
///
/// - Important: docs/relay.md "Settings" (`DATABASE_URL`) and "Replay set".
struct RelayStorage: Sendable {
    let bindings: any BindingStore
    let replay: ReplaySet
    /// The shared replay set's connection, closed with the store.
    private let sharedReplay: PostgreSQLReplaySet?

    /// Where a SQLite relay keeps its replay keys: beside the database file.
    static func journalPath(databasePath: String) -> String { databasePath + "-replay" }

    /// Opens the store the configuration names, migrating its schema.
    static func open(_ configuration: RelayConfiguration, clock: any WallClock, logger: Logger) async throws -> RelayStorage {
        let ceiling = configuration.maxReplayKeys
        guard let url = configuration.databaseURL else {
            let path = configuration.databasePath
            let bindings = try await SQLiteBindingStore.open(path: path, policy: configuration.bindings)
            do {
                let journal = path == SQLiteConnection.memoryPath
                    ? nil : try ReplayJournal.open(path: journalPath(databasePath: path), nowMs: clock.nowMilliseconds)
                let replay = ReplaySet(ceiling: ceiling, journal: journal, logger: logger, nowMs: clock.nowMilliseconds)
                // Reading the journal back took a copy of the file and a table: give it back.
                HeapTrim.release()
                return RelayStorage(bindings: bindings, replay: replay, sharedReplay: nil)
            } catch {
                await bindings.close()
                throw error
            }
        }
        let timeout = configuration.storeCallTimeout
        let bindings = try await PostgreSQLBindingStore.open(url: url, policy: configuration.bindings, callTimeout: timeout)
        do {
            let shared = try await PostgreSQLReplaySet.open(url: url, callTimeout: timeout)
            let replay = ReplaySet(ceiling: ceiling, shared: shared, logger: logger, nowMs: clock.nowMilliseconds)
            return RelayStorage(bindings: bindings, replay: replay, sharedReplay: shared)
        } catch {
            await bindings.close()
            throw error
        }
    }

    /// Finishes accepted writes and closes every connection and the replay journal.
    func close() async throws {
        replay.closeJournal()
        await sharedReplay?.close()
        try await bindings.close()
    }
}
