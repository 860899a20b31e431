import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateStore
import Synchronization
import Testing

/// One ``HostDatabase`` owns host.sqlite's connection for every table (docs/host.md, "Store").
@Suite struct HostDatabaseTests {
    private let home = TemporaryHome()
    private let path: String

    init() throws {
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        path = home.path + "/host.sqlite"
    }

    /// A file written before the connection was shared — the host store and the Live Activity
    /// store each with a connection of its own, every migration applied — opens through one
    /// database with every table's rows, and stays owner-only.
    @Test func aFileFromTwoConnectionsOpensThroughOneWithItsData() async throws {
        do {
            let hostConnection = try SQLiteConnection(path: path, durability: .normal)
            _ = try Migrator.migrate(hostConnection, with: HostMigrations.all)
            let liveActivityConnection = try SQLiteConnection(path: path, durability: .normal)
            _ = try Migrator.migrate(liveActivityConnection, with: HostMigrations.all)
            try hostConnection.execute("""
                INSERT INTO alert_tokens (token, client, platform, locale, environment, created_at, last_seen_at)
                    VALUES ('aa', 'phone', 'ios', 'fr', 'sandbox', 1, 2);
                INSERT INTO badge_tags (tag, added_at) VALUES ('ready-s1', 1), ('question-s2', 2);
                INSERT INTO relay_registrations (relay_url, token, kind, registered_at) VALUES ('http://relay', 'aa', 'alert', 3);
                INSERT INTO hapi_devices (namespace, token, platform, device_id, push_key, created_at, updated_at)
                    VALUES ('default', 'bb', 'ios', 'device-1', NULL, 1, 1);
                INSERT INTO outbox (kind, token, event_id, message, created_at, attempts, next_at)
                    VALUES ('alert', 'aa', 'event-1', '{}', 5, 1, 6);
                """)
            try liveActivityConnection.execute("""
                INSERT INTO live_activity_tokens (token, activity_id, session_id, client, snapshot, created_at, last_seen_at, environment)
                    VALUES ('la', 'activity-1', 's1', 'phone', '[]', 1, 1, 'sandbox');
                INSERT INTO event_versions (id, version) VALUES ('s1', 40), ('live', 41);
                """)
        }
        let database = try HostDatabase(path: path)
        let store = try HostStore(database: database, clock: ManualClock())
        let liveActivities = LiveActivityStore(database: database)

        #expect(try await store.alertTokens().map(\.token) == ["aa"])
        #expect(try await store.badgeCount() == 2)
        #expect(try await store.isRegistered(relayURL: "http://relay", token: "aa", kind: "alert"))
        #expect(store.mayHaveHapiDevices)
        #expect(try await store.hapiDevices(namespace: "default").map(\.token) == ["bb"])
        #expect(try await store.outboxSummary().depth == 1)
        #expect(try await liveActivities.all().map(\.token) == ["la"])
        #expect(try await store.eventVersions() == ["s1": 40, "live": 41])
        // Both stores write event_versions through the one connection, each seeing the other's rows.
        try await store.raiseEventVersion("s1", to: 50)
        #expect(try await liveActivities.nextEventVersion(ids: ["s1", "live"], provided: nil, nowMs: 0) == 51)
        #expect(try await store.eventVersions() == ["s1": 51, "live": 51])
        for file in [path, path + "-wal", path + "-shm"] { #expect(try home.mode(of: file) == 0o600, "\(file)") }
    }

    /// A write of the Live Activity store is seen by the host store at once, and the other way
    /// round: one connection, no second copy to fall behind.
    @Test func bothStoresSeeEachOthersWritesAtOnce() async throws {
        let database = try HostDatabase(path: path)
        let store = try HostStore(database: database, clock: ManualClock())
        let liveActivities = LiveActivityStore(database: database)
        try await store.upsertLiveActivityToken(ImportedLiveActivityToken(token: "la", activityId: "a1", sessionId: "s1",
                                                                          client: "phone", snapshotJSON: "[]"))
        #expect(try await liveActivities.record("la")?.activityId == "a1")
        #expect(try await liveActivities.remove(token: "la", client: "phone") == .removed("la"))
        #expect(try await store.liveActivityTokens().isEmpty)
    }

    /// Jobs run one at a time in the order they were submitted, whatever they await; a drain
    /// waits for the jobs those jobs submit.
    @Test func orderedJobsRunOneAtATimeInSubmissionOrder() async throws {
        let jobs = OrderedJobs(executor: DispatchQueueExecutor(label: "test.ordered-jobs"))
        let log = Log()
        for index in 0..<20 {
            jobs.submit {
                log.append("start \(index)")
                await Task.yield()
                try await Task.sleep(for: .microseconds(index % 3 * 100))
                log.append("end \(index)")
                if index == 19 { jobs.submit { log.append("nested") } }
            }
        }
        await jobs.drain()
        #expect(log.entries == (0..<20).flatMap { ["start \($0)", "end \($0)"] } + ["nested"])
    }

    private final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var entries: [String] { lines.withLock { $0 } }
    }
}
