import Foundation
@testable import PushgateStore
import PushgateTesting
import Testing

/// The replay journal (docs/store.md "The replay journal"): what is written is read back live,
/// forgotten keys and expired keys are dropped, the file grows and is compacted, mode 0600.
@Suite struct ReplayJournalTests {
    private func key(_ n: Int) -> ReplayDigest { ReplayDigest("key-\(n)") }

    @Test func liveKeysComeBackAfterReopeningForgottenAndExpiredOnesDoNot() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite-replay")
        do {
            let (journal, restored) = try ReplayJournal.open(path: path, nowMs: 0)
            #expect(restored.isEmpty)
            try journal.append(key(1), expiresAtMs: 5_000)
            try journal.append(key(2), expiresAtMs: 1_000)
            try journal.append(key(3), expiresAtMs: 5_000)
            try journal.appendForget(key(3))
            #expect(journal.recordCount == 4)
        }
        let (reopened, restored) = try ReplayJournal.open(path: path, nowMs: 2_000)
        #expect(restored.map(\.0) == [key(1)] && restored.map(\.1) == [5_000])
        #expect(reopened.recordCount == 1, "rewritten with the live keys only")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
    }

    @Test func theFileGrowsPastItsFirstRoomAndCompactsToTheLiveKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite-replay")
        let count = ReplayJournal.minimumCapacity + 10
        do {
            let (journal, _) = try ReplayJournal.open(path: path, nowMs: 0)
            for n in 0 ..< count { try journal.append(key(n), expiresAtMs: 10_000) }
            #expect(journal.recordCount == count)
            try journal.compact([(key(7), 10_000)])
            #expect(journal.recordCount == 1)
            try journal.append(key(8), expiresAtMs: 10_000)
        }
        let (_, restored) = try ReplayJournal.open(path: path, nowMs: 0)
        #expect(Set(restored.map(\.0)) == [key(7), key(8)])
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    }

    @Test func aSecondWriterOfTheSameJournalIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite-replay")
        let (first, _) = try ReplayJournal.open(path: path, nowMs: 0)
        #expect(throws: ReplayJournal.Failure.self) { try ReplayJournal.open(path: path, nowMs: 0) }
        withExtendedLifetime(first) {}
    }

    @Test func aJournalThatCannotBeCreatedSaysWhere() {
        #expect(throws: ReplayJournal.Failure.self) { try ReplayJournal.open(path: "/nonexistent-dir/relay.sqlite-replay", nowMs: 0) }
    }
}
