import Foundation
@testable import PushgateCore
@testable import PushgateHost
import PushgateStore
import Testing

/// What the store answers from memory: the badge set, whose new tags are written at once or,
/// in a burst, together once ``HostStore/badgeWriteDelayMs`` has passed since the last write
/// (docs/host.md "Store"); and the alert tokens, read again after this store's
/// writes at once and after another process's within ``HostStore/alertTokenCacheMs``.
@Suite struct StoreWriteBehindTests {
    private let home = TemporaryHome()
    private let path: String

    init() throws {
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        path = home.path + "/host.sqlite"
    }

    /// The tags in `badge_tags`, read by a connection of its own as a restarted host would.
    private func writtenTags() throws -> Set<String> {
        try SQLiteConnection(path: path).withStatement("SELECT tag FROM badge_tags") { statement in
            var tags: Set<String> = []
            while try statement.step() { tags.insert(statement.string(at: 0) ?? "") }
            return tags
        }
    }

    @Test func aBurstOfTagsSharesOneScheduledWrite() async throws {
        let scheduler = ManualScheduler()
        let store = try HostStore(path: path, clock: scheduler.clock, scheduler: scheduler)
        #expect(try await store.addBadgeTag("ready-s1") == 1)
        #expect(try writtenTags() == ["ready-s1"])
        scheduler.advance(byMs: 10)
        #expect(try await store.addBadgeTag("ready-s2") == 2)
        #expect(try await store.addBadgeTag("question-s3") == 3)
        #expect(try await store.addBadgeTag("ready-s2") == 3)
        #expect(try writtenTags() == ["ready-s1"])
        #expect(scheduler.pendingCount == 1)

        scheduler.advance(byMs: 39)
        #expect(store.scheduledBadgeWrite == nil)
        scheduler.advance(byMs: 1)
        await store.scheduledBadgeWrite?.value
        #expect(try writtenTags() == ["ready-s1", "ready-s2", "question-s3"])

        // Quiet again: the next tag is written at once, the one after it waits for shutdown.
        scheduler.advance(byMs: 50)
        #expect(try await store.addBadgeTag("ready-s4") == 4)
        #expect(try writtenTags().count == 4)
        #expect(try await store.addBadgeTag("ready-s5") == 5)
        #expect(try writtenTags().count == 4)
        // Shutdown writes what waits; a tag that comes after it is written at once.
        try await store.finishWritingBehind()
        #expect(try writtenTags().count == 5)
        #expect(scheduler.pendingCount == 0)
        #expect(try await store.addBadgeTag("ready-s6") == 6)
        #expect(try writtenTags().count == 6)
        #expect(try await HostStore(path: path, clock: scheduler.clock).badgeCount() == 6)
    }

    @Test func clearingTheBadgeDropsTagsNotYetWritten() async throws {
        let scheduler = ManualScheduler()
        let store = try HostStore(path: path, clock: scheduler.clock, scheduler: scheduler)
        _ = try await store.addBadgeTag("ready-s1")
        _ = try await store.addBadgeTag("ready-s2")
        #expect(scheduler.pendingCount == 1)
        try await store.clearBadge()
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(byMs: 100)
        await store.scheduledBadgeWrite?.value
        #expect(try writtenTags().isEmpty)
        #expect(try await store.badgeCount() == 0)
        // The last write was long ago: the next tag is written at once.
        #expect(try await store.addBadgeTag("ready-s3") == 1)
        #expect(try writtenTags() == ["ready-s3"])
    }

    @Test func aClockThatWentBackWritesAtOnce() async throws {
        let clock = ManualClock()
        let scheduler = ManualScheduler(clock: clock)
        clock.set(milliseconds: 10_000)
        let store = try HostStore(path: path, clock: clock, scheduler: scheduler)
        _ = try await store.addBadgeTag("ready-s1")
        clock.set(milliseconds: 5_000)
        _ = try await store.addBadgeTag("ready-s2")
        #expect(try writtenTags() == ["ready-s1", "ready-s2"])
        #expect(scheduler.pendingCount == 0)
    }

    /// Writing behind, a failed write keeps its tag counted (the push goes on), is logged once
    /// however often its retries fail, and is tried again after the delay until it succeeds.
    @Test func aFailedWriteBehindKeepsItsTagsAndIsTriedAgain() async throws {
        let scheduler = ManualScheduler()
        let sink = Logger.MemorySink()
        let store = try HostStore(path: path, clock: scheduler.clock, scheduler: scheduler,
                                  logger: Logger(component: "store", sink: sink))
        let other = try SQLiteConnection(path: path)
        try other.execute("ALTER TABLE badge_tags RENAME TO badge_tags_away")
        #expect(try await store.addBadgeTag("ready-s1") == 1)
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(byMs: HostStore.badgeWriteDelayMs)
        await store.scheduledBadgeWrite?.value
        #expect(scheduler.pendingCount == 1)
        #expect(sink.lines.count == 1 && sink.lines[0].hasPrefix("level=error component=store"))

        try other.execute("ALTER TABLE badge_tags_away RENAME TO badge_tags")
        scheduler.advance(byMs: HostStore.badgeWriteDelayMs)
        await store.scheduledBadgeWrite?.value
        #expect(try writtenTags() == ["ready-s1"])
        #expect(scheduler.pendingCount == 0)
        #expect(sink.lines.count == 2 && sink.lines[1].hasPrefix("level=info component=store"))
    }

    /// Writing through (no scheduler, or after shutdown), a failed write throws and its tag
    /// does not count, as the event that brought it sends nothing.
    @Test func aFailedWriteThroughThrowsAndDoesNotCount() async throws {
        let store = try HostStore(path: path, clock: ManualClock())
        let other = try SQLiteConnection(path: path)
        try other.execute("ALTER TABLE badge_tags RENAME TO badge_tags_away")
        await #expect(throws: SQLiteError.self) { try await store.addBadgeTag("ready-s1") }
        #expect(try await store.badgeCount() == 0)
        try other.execute("ALTER TABLE badge_tags_away RENAME TO badge_tags")
        #expect(try await store.addBadgeTag("ready-s1") == 1)
        #expect(try writtenTags() == ["ready-s1"])
    }

    @Test func alertTokensFollowThisStoreAtOnceAndAnotherProcessWithinTheCacheTime() async throws {
        let clock = ManualClock()
        let scheduler = ManualScheduler(clock: clock)
        let store = try HostStore(path: path, clock: scheduler.clock, scheduler: scheduler)
        #expect(try await store.beginAlertRound(tag: "ready-s1", platforms: [.ios]).tokens.isEmpty)
        try await store.upsertAlertToken(AlertToken(token: "aa", locale: "en"))
        #expect(try await store.beginAlertRound(tag: nil, platforms: [.ios]).tokens.map(\.token) == ["aa"])

        // An import run by another process writes through a store of its own.
        let importer = try HostStore(path: path, clock: scheduler.clock)
        scheduler.advance(byMs: 1)
        try await importer.upsertAlertToken(AlertToken(token: "bb", locale: "ja"))
        scheduler.advance(byMs: HostStore.alertTokenCacheMs - 2)
        #expect(try await store.beginAlertRound(tag: nil, platforms: [.ios]).tokens.map(\.token) == ["aa"])
        scheduler.advance(byMs: 1)
        #expect(try await store.beginAlertRound(tag: nil, platforms: [.ios]).tokens.map(\.token) == ["aa", "bb"])

        // A clock that went back reads again at once.
        try await importer.upsertAlertToken(AlertToken(token: "dd", locale: "en"))
        clock.set(milliseconds: clock.nowMilliseconds - 10)
        #expect(try await store.beginAlertRound(tag: nil, platforms: [.ios]).tokens.map(\.token) == ["aa", "bb", "dd"])

        #expect(try await store.deleteAlertToken("aa") == .ios)
        #expect(try await store.beginAlertRound(tag: nil, platforms: [.ios]).tokens.map(\.token) == ["bb", "dd"])
        // An Android token is a target only of a round that has an Android transport; a round
        // with no token adds no badge tag.
        try await store.upsertAlertToken(AlertToken(token: "cc", platform: .android))
        let round = try await store.beginAlertRound(tag: "ready-s2", platforms: [.ios])
        #expect(round.tokens.map(\.token) == ["bb", "dd"] && round.badge == 1)
        #expect(try await store.beginAlertRound(tag: "ready-s3", platforms: []).badge == 1)
        let both = try await store.beginAlertRound(tag: "ready-s3", platforms: [.ios, .android])
        #expect(Set(both.tokens.map(\.token)) == ["bb", "dd", "cc"] && both.badge == 2)
    }
}
