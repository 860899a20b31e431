import Foundation
@testable import PushgateStore
import PushgateTesting
import Testing

/// What only the SQLite store does; the shared binding rules are in ``BindingStoreContractTests``.
@Suite struct SQLiteBindingStoreTests {
    @Test func anInMemoryStoreServesReadsFromItsOneConnection() async throws {
        let store = try await SQLiteBindingStore.open(path: SQLiteConnection.memoryPath)
        let token = String(repeating: "ab", count: 32)
        _ = try await store.register(token: token, kind: .alert, serverId: "host-1", nowMs: 1)
        #expect(try await store.boundTokens([token], kind: .alert, serverId: "host-1", nowMs: 1) == [token])
        #expect(try await store.count() == 1)
        await store.close()
    }

    @Test func createsTheDatabaseDirectory() async throws {
        let dir = try TemporaryDirectory()
        let store = try await SQLiteBindingStore.open(path: dir.file("data/relay.sqlite"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.file("data"))
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        await store.close()
    }
}
