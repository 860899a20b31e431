import PushgateCore
import Testing
@testable import PushgateStore

/// One owner per connection (docs/store.md, "Concurrency"): a connection is opened and used on
/// its owner's queue; debug builds stop any statement run elsewhere once it is confined.
@Suite struct ConnectionOwnerTests {
    @Test func aConfinedConnectionRunsItsStatementsOnItsOwnersQueue() throws {
        let owner = DispatchQueueExecutor(label: "test.owner")
        let connection = try owner.runAndWait {
            let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
            connection.confine(to: owner)
            return connection
        }
        let answer = try owner.runAndWait { try connection.integer("SELECT 41 + 1", []) }
        #expect(answer == 42)
    }

    @Test func aWorkerConfinesTheConnectionItOpens() async throws {
        let worker = ConnectionWorker<SQLiteConnection>(label: "test.worker")
        try await worker.open { try SQLiteConnection(path: SQLiteConnection.memoryPath) }
        // Every statement the worker runs passes the owner check: it runs on the worker's queue.
        #expect(try await worker.run { try $0.integer("SELECT 7", []) } == 7)
    }
}
