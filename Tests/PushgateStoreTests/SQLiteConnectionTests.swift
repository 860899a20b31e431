internal import CSQLite
import Foundation
@testable import PushgateStore
import PushgateTesting
import Testing

@Suite struct SQLiteConnectionTests {
    @Test func opensInWALWithFullSyncAndForeignKeys() throws {
        let dir = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("a.sqlite"))
        func pragma(_ name: String) throws -> String {
            try connection.withStatement("PRAGMA \(name)") { try $0.step() ? $0.string(at: 0) ?? "" : "" }
        }
        #expect(try pragma("journal_mode") == "wal")
        #expect(try pragma("synchronous") == "2")
        #expect(try pragma("foreign_keys") == "1")
        #expect(try pragma("busy_timeout") == "5000")
    }

    @Test func normalDurabilitySyncsFullyOnlyInsideDurably() throws {
        let dir = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("a.sqlite"), durability: .normal)
        func synchronous() throws -> String {
            try connection.withStatement("PRAGMA synchronous") { try $0.step() ? $0.string(at: 0) ?? "" : "" }
        }
        #expect(try synchronous() == "1")
        #expect(try connection.durably { try synchronous() } == "2")
        #expect(try synchronous() == "1")
        struct Failure: Error {}
        #expect(throws: Failure.self) { try connection.durably { throw Failure() } }
        #expect(try synchronous() == "1")
        let full = try SQLiteConnection(path: dir.file("b.sqlite"))
        #expect(try full.durably { try full.withStatement("PRAGMA synchronous") { try $0.step() ? $0.string(at: 0) : nil } } == "2")
    }

    @Test func bindsAndReadsEveryType() throws {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        try connection.execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)")
        try connection.withStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?)") { statement in
            try statement.bind(Int64.min, at: 1)
            try statement.bind(0.1, at: 2)
            try statement.bind("é\u{0}x", at: 3)
            try statement.bind([0, 255, 7], at: 4)
            try statement.bindNull(at: 5)
            #expect(try statement.step() == false)
        }
        try connection.withStatement("INSERT INTO t VALUES (1, 1, ?, ?, 'x')") { statement in
            try statement.bind("", at: 1)
            try statement.bind([UInt8](), at: 2)
            try statement.step()
        }
        var rows: [[String]] = []
        try connection.withStatement("SELECT i, d, s, b, n, typeof(s), typeof(b) FROM t ORDER BY i") { statement in
            while try statement.step() {
                #expect(!statement.isNull(at: 2) && !statement.isNull(at: 3))
                rows.append(["\(statement.int64(at: 0))", "\(statement.double(at: 1))",
                             statement.string(at: 2) ?? "nil", "\(statement.blob(at: 3) ?? [9])",
                             statement.string(at: 4) ?? "nil", statement.string(at: 5) ?? "", statement.string(at: 6) ?? ""])
            }
        }
        #expect(rows == [
            ["\(Int64.min)", "0.1", "é\u{0}x", "[0, 255, 7]", "nil", "text", "blob"],
            ["1", "1.0", "", "[]", "x", "text", "blob"],
        ])
    }

    @Test func reusedStatementStartsWithClearedBindings() throws {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        let sql = "SELECT ?1 IS NULL"
        #expect(try connection.withStatement(sql) { try $0.bind(Int64(5), at: 1); try $0.step(); return $0.int64(at: 0) } == 0)
        // Same cached statement, reset and cleared: the parameter is NULL again.
        #expect(try connection.withStatement(sql) { try $0.step(); return $0.int64(at: 0) } == 1)
        // A nested borrow of the same SQL gets its own statement.
        let nested = try connection.withStatement(sql) { outer in
            try outer.bind(Int64(1), at: 1)
            return try connection.withStatement(sql) { inner in try inner.step(); return inner.int64(at: 0) }
        }
        #expect(nested == 1)
    }

    @Test func errorsCarryCodesMessageAndSQL() throws {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        try connection.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES ('a')")
        let error = try #require(throws: SQLiteError.self) {
            try connection.withStatement("INSERT INTO t VALUES ('a')") { try $0.step() }
        }
        #expect(error.code == SQLITE_CONSTRAINT)
        #expect(error.extendedCode == SQLITE_CONSTRAINT | (6 << 8)) // SQLITE_CONSTRAINT_PRIMARYKEY (a macro Swift does not import)
        #expect(error.operation == "step")
        #expect(error.sql == "INSERT INTO t VALUES ('a')")
        #expect(error.message.contains("UNIQUE constraint failed"))
        let prepare = try #require(throws: SQLiteError.self) { try connection.withStatement("SELEC 1") { _ in } }
        #expect(prepare.operation == "prepare" && prepare.code == SQLITE_ERROR)
    }

    @Test func readOnlyConnectionRefusesWritesAndMissingFiles() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: SQLiteError.self) { try SQLiteConnection(path: dir.file("missing.sqlite"), access: .readOnly) }
        let writer = try SQLiteConnection(path: dir.file("a.sqlite"))
        try writer.execute("CREATE TABLE t (x)")
        let reader = try SQLiteConnection(path: dir.file("a.sqlite"), access: .readOnly)
        let error = try #require(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code == SQLITE_READONLY)
    }

    @Test func createsMissingDirectoriesOwnerOnly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a/b/relay.sqlite")
        try DatabaseDirectory.prepare(for: path)
        try DatabaseDirectory.prepare(for: path)
        _ = try SQLiteConnection(path: path)
        for directory in [dir.file("a"), dir.file("a/b")] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory)
            #expect((attributes[.posixPermissions] as? Int) == 0o700)
        }
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
