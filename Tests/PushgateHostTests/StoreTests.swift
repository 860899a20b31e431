import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateStore
import Testing

/// protocol/host-api.md §8 and the persisted badge of §4 (§9 line 10, restart part).
@Suite struct StoreTests {
    @Test func hostSQLiteAndItsLogsAreOwnerOnlyWhateverTheUmask() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let path = home.path + "/host.sqlite"
        // The widest umask: the files get exactly the mode the code asks for.
        let previous = umask(0)
        defer { umask(previous) }
        let store = try HostStore(path: path, clock: ManualClock())
        try await store.upsertAlertToken(AlertToken(token: "ab", locale: "fr", environment: "sandbox"))
        for file in [path, path + "-wal", path + "-shm"] { #expect(try home.mode(of: file) == 0o600, "\(file)") }
        withExtendedLifetime(store) {}
    }

    @Test func tokensBadgeAndRegistrationsSurviveReopen() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let path = home.path + "/host.sqlite"
        let clock = ManualClock()
        do {
            let store = try HostStore(path: path, clock: clock)
            try await store.upsertAlertToken(AlertToken(token: "ab", locale: "fr", environment: "sandbox"))
            clock.advance(milliseconds: 10)
            try await store.upsertAlertToken(AlertToken(token: "ab", locale: "ja", environment: "production"))
            #expect(try await store.addBadgeTag("ready-s1") == 1)
            #expect(try await store.addBadgeTag("question-s1") == 2)
            #expect(try await store.addBadgeTag("ready-s1") == 2)
            try await store.markRegistered(relayURL: "http://a", token: "ab", kind: "alert")
        }
        let store = try HostStore(path: path, clock: clock)
        let tokens = try await store.alertTokens()
        #expect(tokens.count == 1)
        #expect(tokens[0].locale == "ja" && tokens[0].environment == "production")
        #expect(tokens[0].lastSeenAtMs == tokens[0].createdAtMs + 10)
        #expect(try await store.badgeCount() == 2)
        #expect(try await store.isRegistered(relayURL: "http://a", token: "ab", kind: "alert"))
        try await store.clearRegistrations(except: "http://b")
        #expect(try await !store.isRegistered(relayURL: "http://a", token: "ab", kind: "alert"))
        try await store.clearBadge()
        #expect(try await store.badgeCount() == 0)
        #expect(try await store.deleteAlertToken("ab") == .ios)
        #expect(try await store.deleteAlertToken("ab") == nil)
    }

    /// Migration 5 rebuilds `badge_tags` keyed by the tag alone: a badge set written by the
    /// schema before it keeps every tag and its count.
    @Test func badgeTagsSurviveTheMoveToATagKeyedTable() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let path = home.path + "/host.sqlite"
        do {
            let old = try SQLiteConnection(path: path)
            _ = try Migrator.migrate(old, with: Array(HostMigrations.all.prefix(4)))
            try old.execute("INSERT INTO badge_tags (tag, added_at) VALUES ('ready-s1', 1), ('question-s2', 2)")
        }
        let store = try HostStore(path: path, clock: ManualClock())
        #expect(try await store.badgeCount() == 2)
        #expect(try await store.addBadgeTag("ready-s1") == 2)
        #expect(try await store.addBadgeTag("ready-s3") == 3)
        let schema = try SQLiteConnection(path: path).withStatement("SELECT sql FROM sqlite_master WHERE name = 'badge_tags'") { statement in
            try statement.step() ? statement.string(at: 0) : nil
        }
        #expect(schema?.hasSuffix("WITHOUT ROWID") == true)
    }

    /// The registration cache answers from memory once read; every write must change it with
    /// the table, and a reopened store must find the same rows.
    @Test func registrationCacheFollowsEveryWriteAndTheTable() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let path = home.path + "/host.sqlite"
        let clock = ManualClock()
        let store = try HostStore(path: path, clock: clock)
        func registered(_ relay: String, _ tokens: [String], _ kind: String = "alert") async throws -> Set<String> {
            Set(try await store.registrationTimes(relayURL: relay, tokens: tokens, kind: kind).keys)
        }
        try await store.markRegistered(relayURL: "http://a", token: "t1", kind: "alert")
        #expect(try await registered("http://a", ["t1", "t2"]) == ["t1"])  // read from the table
        let firstMs = clock.nowMilliseconds
        clock.advance(milliseconds: 5)
        try await store.markRegistered(relayURL: "http://a", token: "t2", kind: "alert")
        #expect(try await store.registrationTimes(relayURL: "http://a", tokens: ["t1", "t2"], kind: "alert")
                == ["t1": firstMs, "t2": firstMs + 5], "each registration keeps its own time")
        try await store.markRegistered(relayURL: "http://a", token: "t2", kind: "liveactivity")
        try await store.markRegistered(relayURL: "http://b", token: "t3", kind: "alert")
        #expect(try await registered("http://a", ["t1", "t2", "t3"]) == ["t1", "t2"])
        #expect(try await registered("http://a", ["t2"], "liveactivity") == ["t2"])

        try await store.forgetRegistration(token: "t2", kind: "alert")
        #expect(try await registered("http://a", ["t1", "t2"]) == ["t1"])
        #expect(try await registered("http://a", ["t2"], "liveactivity") == ["t2"])

        try await store.upsertAlertToken(AlertToken(token: "t1"))
        try await store.deleteAlertToken("t1")
        #expect(try await registered("http://a", ["t1"]).isEmpty)

        try await store.clearRegistrations(except: "http://b")
        #expect(try await registered("http://a", ["t2"], "liveactivity").isEmpty)
        #expect(try await registered("http://b", ["t3"]) == ["t3"])

        let reopened = try HostStore(path: path, clock: clock)
        #expect(try await reopened.registrationTimes(relayURL: "http://b", tokens: ["t1", "t2", "t3"], kind: "alert")
                == ["t3": firstMs + 5])
        #expect(try await reopened.registrationTimes(relayURL: "http://a", tokens: ["t1", "t2"], kind: "liveactivity").isEmpty)
        try await store.clearRegistrations(except: nil)
        #expect(try await registered("http://b", ["t3"]).isEmpty)
    }
}
