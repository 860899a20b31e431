@testable import PushgateStore
import PushgateTesting
import Testing

@Suite struct MigratorTests {
    private let migrations = [
        Migration(version: 1, sql: "CREATE TABLE a (x INTEGER)"),
        Migration(version: 2, sql: "CREATE TABLE b (y INTEGER); INSERT INTO b VALUES (2)"),
    ]

    @Test func appliesEveryStepToAFreshDatabaseThenNothingOnReopen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("m.sqlite")
        do {
            let connection = try SQLiteConnection(path: path)
            #expect(try Migrator.migrate(connection, with: Array(migrations.prefix(1))) == [1])
            #expect(try connection.userVersion() == 1)
        }
        let connection = try SQLiteConnection(path: path)
        #expect(try Migrator.migrate(connection, with: migrations) == [2])
        #expect(try Migrator.migrate(connection, with: migrations) == [])
        #expect(try connection.userVersion() == 2)
        #expect(try connection.withStatement("SELECT y FROM b") { try $0.step(); return $0.int64(at: 0) } == 2)
    }

    @Test func refusesADatabaseNewerThanTheCode() throws {
        let dir = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("m.sqlite"))
        try Migrator.migrate(connection, with: migrations)
        let error = try #require(throws: MigrationError.self) {
            try Migrator.migrate(connection, with: Array(migrations.prefix(1)))
        }
        #expect(error.description.contains("version 2 is newer than this build knows (1)"))
    }

    @Test func aFailingStepLeavesTheVersionAndSchemaUntouched() throws {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        let broken = [migrations[0], Migration(version: 2, sql: "CREATE TABLE c (z); INSERT INTO nowhere VALUES (1)")]
        #expect(throws: SQLiteError.self) { try Migrator.migrate(connection, with: broken) }
        #expect(try connection.userVersion() == 1)
        #expect(throws: SQLiteError.self) { try connection.execute("SELECT * FROM c") }
    }

    @Test func refusesAMisnumberedList() throws {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        #expect(throws: MigrationError.self) { try Migrator.migrate(connection, with: [migrations[1]]) }
        #expect(try connection.userVersion() == 0)
    }
}
