import PushgateTesting
import Testing
@testable import PushgateStore
import PushgateTestSupport

/// The libpq wrapper against the test PostgreSQL server.
@Suite(.hangLimit(.minutes(1))) struct PostgreSQLConnectionTests {
    private static func connect(_ url: String, setup: [String] = []) throws -> PostgreSQLConnection {
        try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: 42, setup: setup))
    }

    @Test func parametersTravelAsValuesNeverAsSQL() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let texts = ["it's", "ünïcødé ✓", "", "'); DROP TABLE t; --", "?1 $1"]
        let rows = try await onOwnThread {
            let connection = try Self.connect(url)
            try connection.execute("CREATE TABLE t (n BIGINT, s TEXT)")
            for (index, text) in texts.enumerated() {
                try connection.run("INSERT INTO t (n, s) VALUES (?1, ?2)", [.integer(Int64(index)), .text(text)])
            }
            try connection.run("INSERT INTO t (n, s) VALUES (?1, ?2)", [.integer(Int64.min), .null])
            return (try connection.texts("SELECT s FROM t ORDER BY n", []),
                    try connection.integer("SELECT min(n) FROM t", []),
                    try connection.integer("SELECT count(*) FROM t WHERE s IS NULL", []))
        }
        #expect(rows.0 == texts, "NULL is skipped")
        #expect(rows.1 == Int64.min)
        #expect(rows.2 == 1)
    }

    @Test func eachStatementIsPreparedOnceAndReused() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let prepared = try await onOwnThread {
            let connection = try Self.connect(url)
            for value in 0 ..< 5 { _ = try connection.integer("SELECT ?1::bigint + 1", [.integer(Int64(value))]) }
            _ = try connection.integer("SELECT ?1::bigint + 2", [.integer(1)])
            return try connection.texts("SELECT statement FROM pg_prepared_statements WHERE statement LIKE ?1 ORDER BY statement",
                                        [.text("SELECT $1::bigint + %")])
        }
        #expect(prepared == ["SELECT $1::bigint + 1", "SELECT $1::bigint + 2"])
    }

    @Test func errorsCarryTheSQLStateAndNoRowValues() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let error = try await onOwnThread { () -> PostgreSQLError? in
            let connection = try Self.connect(url)
            try connection.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
            try connection.run("INSERT INTO t (k) VALUES (?1)", [.text("device-token-abc")])
            do {
                try connection.run("INSERT INTO t (k) VALUES (?1)", [.text("device-token-abc")])
                return nil
            } catch let error as PostgreSQLError {
                return error
            }
        }
        let failure = try #require(error)
        #expect(failure.sqlState == "23505")
        #expect(failure.message.contains("duplicate key"))
        // The server's DETAIL line would quote the key.
        #expect(!failure.description.contains("device-token-abc"))
    }

    @Test func aFailedTransactionRollsBackAndKeepsTheFirstError() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let (sqlState, rows) = try await onOwnThread { () -> (String?, Int64?) in
            let connection = try Self.connect(url)
            try connection.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
            var sqlState: String?
            do {
                try connection.writeTransaction {
                    try connection.run("INSERT INTO t (k) VALUES (1)", [])
                    try connection.run("INSERT INTO t (k) VALUES (?1)", [.text("not a number")])
                }
            } catch let error as PostgreSQLError {
                sqlState = error.sqlState
            }
            return (sqlState, try connection.integer("SELECT count(*) FROM t", []))
        }
        #expect(sqlState == "22P02", "invalid text representation, not a later 'transaction aborted'")
        #expect(rows == 0)
    }

    @Test func textWithANulByteIsRefusedBeforeLibpq() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let error = try await onOwnThread { () -> PostgreSQLError? in
            let connection = try Self.connect(url)
            do {
                _ = try connection.texts("SELECT ?1::text", [.text("a\u{0}b")])
                return nil
            } catch let error as PostgreSQLError {
                return error
            }
        }
        #expect(error?.operation == "bind")
    }

    @Test func aConnectionTheServerDroppedIsReplacedBeforeTheNextRead() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let (before, after, name) = try await onOwnThread {
            let connection = try Self.connect(url, setup: ["SET application_name = 'dropped-connection-test'"])
            let before = try connection.integer("SELECT pg_backend_pid()", [])
            let admin = try Self.connect(url)
            _ = try admin.texts("SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name = 'dropped-connection-test'", [])
            let name = try connection.texts("SELECT current_setting('application_name')", [])
            return (before, try connection.integer("SELECT pg_backend_pid()", []), name)
        }
        #expect(before != nil && after != nil && before != after)
        #expect(name == ["dropped-connection-test"], "the session settings came back with the new connection")
    }

    @Test func connectFailuresNameTheServerButNeverThePassword() async throws {
        let server = try await PostgreSQLTestServer.required()
        let secret = "hunter2-SECRET"
        let missing = server.url(database: "no_such_database", password: secret)
        let error = try await onOwnThread { () -> PostgreSQLError? in
            do {
                _ = try Self.connect(missing)
                return nil
            } catch let error as PostgreSQLError {
                return error
            }
        }
        let failure = try #require(error)
        #expect(failure.description.contains("no_such_database"), "\(failure)")
        #expect(failure.description.contains("***"), "\(failure)")
        #expect(!failure.description.contains(secret), "\(failure)")
    }
}
