import Foundation
@testable import PushgateStore
import PushgateTesting
import Testing

/// The relay's database files hold device tokens: readable by their owner only (docs/security.md).
@Suite(.serialized) struct DatabaseFileModeTests {
    @Test func theDatabaseItsLogsAndTheReplayJournalAreOwnerOnlyWhateverTheUmask() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite")
        // The widest umask: the files get exactly the mode the code asks for.
        let previous = umask(0)
        defer { umask(previous) }
        let store = try await SQLiteBindingStore.open(path: path)
        #expect(try await store.register(token: "aa", kind: .alert, serverId: "s", nowMs: 1, mayAddToken: true) == .created)
        let journal = try ReplayJournal.open(path: path + "-replay", nowMs: 0)
        for file in [path, path + "-wal", path + "-shm", path + "-replay"] {
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600, "\(file)")
        }
        withExtendedLifetime(journal) {}
        await store.close()
    }

    @Test func anExistingDatabaseFileKeepsItsMode() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("relay.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
        let store = try await SQLiteBindingStore.open(path: path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        await store.close()
    }
}
