import Foundation
import PushgateCore
@testable import PushgateHost
import Testing

/// The Live Activity store: its in-memory copy costs one read when nothing changed, follows
/// writes from other connections (`import-openchamber`), and persists tokens and versions.
@Suite struct LiveActivityStoreTests {
    private func paths() throws -> String {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        return home.path + "/host.sqlite"
    }

    private func registration(_ token: String, activity: String, client: String? = "phone-1") -> LiveActivityRegistration {
        LiveActivityRegistration(token: token, activityId: activity, sessionId: "s1", client: client)
    }

    @Test func unchangedCopyCostsOneReadAndOtherConnectionsAreSeen() async throws {
        let path = try paths()
        let hostStore = try HostStore(path: path, clock: ManualClock())
        let store = try LiveActivityStore(path: path)
        let row = try LiveActivityItem(sessionID: "s1", title: "Build", status: .working, startedAt: 1_764_669_000)
        _ = try await store.register(registration("aa11", activity: "a1"), defaultRows: [row], maxPerClient: 8, nowMs: 1)
        var reads = await store.reads
        #expect(try await store.all().map(\.token) == ["aa11"])
        #expect(await store.reads - reads == 1, "the copy is current after this store's own write")
        reads = await store.reads
        _ = try await store.all()
        #expect(await store.reads - reads == 1)

        try await hostStore.upsertLiveActivityToken(ImportedLiveActivityToken(
            token: "bb22", activityId: "a2", sessionId: "s2", client: nil,
            snapshotJSON: #"[{"sessionId":"s2","status":"retry","startedAt":5},{"sessionID":"bad","status":"busy","startedAt":1}]"#))
        reads = await store.reads
        let all = try await store.all()
        #expect(await store.reads - reads == 3, "revision, reload, revision")
        #expect(all.map(\.token) == ["aa11", "bb22"] || all.map(\.token) == ["bb22", "aa11"])
        #expect(all.first { $0.token == "bb22" }?.rows == [try LiveActivityItem(sessionID: "s2", status: .retry, startedAt: 5)],
                "a stored row that breaks the rules is skipped, the token kept")
        #expect(try await hostStore.counts().liveActivityTokens == 2)

        let reopened = try LiveActivityStore(path: path)
        #expect(try await reopened.record("aa11") == (try await store.record("aa11")))
    }

    @Test func eventVersionsRiseAndArePersisted() async throws {
        let path = try paths()
        let store = try LiveActivityStore(path: path)
        #expect(try await store.nextEventVersion(ids: ["s1", "live"], provided: nil, nowMs: 1_000) == 1_000)
        #expect(try await store.nextEventVersion(ids: ["live"], provided: nil, nowMs: 1_000) == 1_001)
        #expect(try await store.nextEventVersion(ids: ["s1"], provided: nil, nowMs: 900) == 1_001)
        #expect(try await store.nextEventVersion(ids: ["s2", "live"], provided: 5_000, nowMs: 1_000) == 5_000)
        #expect(try await store.nextEventVersion(ids: ["s3"], provided: nil, nowMs: 2_000) == 2_000)
        let reopened = try LiveActivityStore(path: path)
        #expect(try await reopened.nextEventVersion(ids: ["s1", "live"], provided: nil, nowMs: 0) == 5_001)
        let hostStore = try HostStore(path: path, clock: ManualClock())
        #expect(try await hostStore.eventVersions() == ["s1": 5_001, "live": 5_001, "s2": 5_000, "s3": 2_000])
    }

    @Test func registrationReplacesEvictsAndChecksTheOwner() async throws {
        let store = try LiveActivityStore(path: try paths())
        let row = try LiveActivityItem(sessionID: "s1", status: .working, startedAt: 1)
        #expect(try await store.register(registration("aa01", activity: "a1"), defaultRows: [row], maxPerClient: 2, nowMs: 1)
                == .stored(replaced: nil, evicted: []))
        #expect(try await store.register(registration("aa02", activity: "a1"), defaultRows: [], maxPerClient: 2, nowMs: 2)
                == .stored(replaced: "aa01", evicted: []))
        #expect(try await store.record("aa02")?.rows == [row], "rows carry over to the replacement")
        #expect(try await store.register(registration("aa03", activity: "a3"), defaultRows: [row], maxPerClient: 2, nowMs: 3)
                == .stored(replaced: nil, evicted: []))
        #expect(try await store.register(registration("aa04", activity: "a4"), defaultRows: [row], maxPerClient: 2, nowMs: 4)
                == .stored(replaced: nil, evicted: ["aa02"]))
        #expect(try await store.register(registration("aa04", activity: "a4", client: "other"), defaultRows: [row],
                                         maxPerClient: 2, nowMs: 5) == .forbidden)
        #expect(try await store.remove(token: "aa04", client: "other") == .forbidden)
        #expect(try await store.remove(activityId: "a3", client: "phone-1") == .removed("aa03"))
        #expect(try await store.remove(token: "aa03", client: "phone-1") == .notFound)
        #expect(try await store.expire(notSeenSince: 5) == ["aa04"])
        #expect(try await store.all().isEmpty)
    }
}
