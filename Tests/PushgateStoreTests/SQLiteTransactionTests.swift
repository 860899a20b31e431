internal import CSQLite
import Testing
@testable import PushgateStore

@Suite struct SQLiteTransactionTests {
    private func makeConnection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        try connection.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        return connection
    }

    private func count(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.withStatement("SELECT count(*) FROM t") { try $0.step(); return $0.int64(at: 0) }
    }

    @Test func commitsWhenTheBodyReturns() throws {
        let connection = try makeConnection()
        let value = try connection.transaction(.immediate) { () throws -> Int in
            #expect(connection.isInTransaction)
            try connection.execute("INSERT INTO t VALUES ('a')")
            return 7
        }
        #expect(value == 7)
        #expect(!connection.isInTransaction)
        #expect(try count(connection) == 1)
    }

    @Test func rollsBackAndThrowsTheFailingStatementsError() throws {
        let connection = try makeConnection()
        let error = try #require(throws: SQLiteError.self) {
            try connection.transaction(.immediate) {
                try connection.execute("INSERT INTO t VALUES ('a')")
                try connection.execute("INSERT INTO t VALUES ('a')")
            }
        }
        #expect(error.extendedCode == SQLITE_CONSTRAINT | (6 << 8)) // SQLITE_CONSTRAINT_PRIMARYKEY (a macro Swift does not import)
        #expect(error.rollbackFailure == nil)
        #expect(!connection.isInTransaction)
        #expect(try count(connection) == 0)
    }

    @Test func keepsTheFirstErrorWhenTheRollbackFailsToo() throws {
        let connection = try makeConnection()
        let error = try #require(throws: SQLiteError.self) {
            try connection.transaction(.immediate) {
                // Ending the transaction inside makes the wrapper's ROLLBACK fail afterwards.
                try connection.execute("COMMIT")
                try connection.execute("INSERT INTO missing VALUES (1)")
            }
        }
        #expect(error.message.contains("no such table: missing"))
        let rollback = try #require(error.rollbackFailure)
        #expect(rollback.sql == "ROLLBACK")
        #expect(rollback.message.contains("no transaction is active"))
    }

    @Test func rethrowsOtherErrorTypesUnchanged() throws {
        struct Abort: Error, Equatable {}
        let connection = try makeConnection()
        #expect(throws: Abort()) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES ('a')")
                throw Abort()
            }
        }
        #expect(try count(connection) == 0)
    }
}
