import Foundation
import PushgateCore
import PushgateStore
import PushgateTestSupport
import PushgateTesting
import Synchronization
import Testing

/// `pushgate-relay backup FILE`: a consistent copy of a live relay's SQLite database, taken while
/// the relay serves and hosts keep registering; a PostgreSQL relay is pointed to `pg_dump`.
@Suite(.hangLimit(.minutes(1))) struct BackupCommandTests {
    @Test func aLiveRelaysDatabaseIsCopiedWhileItServes() async throws {
        // Limits far above what the test registers: a refusal would be no test of the copy.
        let relay = try await RelayUnderAttack(settings: ["REGISTER_LIMIT_PER_MINUTE": "1000000", "NEW_TOKENS_PER_IP_PER_HOUR": "1000000",
                                                          "MAX_TOKENS_PER_HOST": "1000000"])
        let host = SigningHost()
        let before = (0..<40).map { _ in TestToken.make() }
        try await onOwnThread { () throws in
            for token in before { #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200) }
        }
        let database = relay.directory.appendingPathComponent("relay.sqlite").path
        let copy = relay.directory.appendingPathComponent("backups/relay-copy.sqlite").path
        try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // A host goes on registering while the copy is taken, until it is done.
        let during = Registrations()
        async let writer: Void = onOwnThread { () throws in
            while !during.isDone {
                let token = TestToken.make()
                #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
                during.add(token)
            }
        }
        let outcome = try await SettingsTableTests.relay(["backup", copy, "--database-path", database])
        during.finish()
        try await writer
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix("backed up \(database) to \(copy) ("))
        // The relay served on: a registration after the copy works.
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(TestToken.make(), at: relay.nowMs)).status == 200)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: copy)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: (copy as NSString).deletingLastPathComponent) == ["relay-copy.sqlite"],
                "only the copy: no temporary, -wal or -shm file left")
        let store = try await SQLiteBindingStore.open(path: copy)
        for token in before {
            #expect(try await store.bindings(of: token).map(\.serverId) == [host.key.publicKey.serverId])
        }
        // A registration the copy holds is whole; one after the snapshot is absent, never half there.
        for token in during.tokens {
            #expect(try await store.bindings(of: token).count <= 1)
        }
        await store.close()
        try await relay.stop()
    }

    @Test func postgreSQLTheDatabaseItselfAndNoDatabaseAreRefused() async throws {
        let directory = try TemporaryDirectory.create("backup").path
        let copy = directory + "/copy.sqlite"
        let postgreSQL = try await SettingsTableTests.relay(["backup", copy, "--database-url", "postgres://relay@127.0.0.1:1/pushgate"])
        #expect(postgreSQL.status == 2 && postgreSQL.stderr.contains("pg_dump"))
        let missing = try await SettingsTableTests.relay(["backup", copy, "--database-path", directory + "/none.sqlite"])
        #expect(missing.status == 1 && missing.stderr.contains("there is no database"))
        let database = directory + "/relay.sqlite"
        try await SQLiteBindingStore.open(path: database).close()
        let itself = try await SettingsTableTests.relay(["backup", database, "--database-path", database])
        #expect(itself.status == 1 && itself.stderr.contains("is the database itself"))
        #expect(try await SettingsTableTests.relay(["backup"]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: copy))
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The tokens a host registered while a backup ran, and whether it should stop.
private final class Registrations: Sendable {
    private let state = Mutex((done: false, tokens: [String]()))

    var isDone: Bool { state.withLock { $0.done } }
    var tokens: [String] { state.withLock { $0.tokens } }
    func add(_ token: String) { state.withLock { $0.tokens.append(token) } }
    func finish() { state.withLock { $0.done = true } }
}
