import Dispatch
@testable import PushgateStore
import PushgateTesting
import Synchronization
import Testing

@Suite struct GroupCommitQueueTests {
    private struct Setup {
        let dir: TemporaryDirectory
        let worker: ConnectionWorker<SQLiteConnection>
        let queue: GroupCommitQueue<SQLiteConnection>
    }

    private func makeQueue() async throws -> Setup {
        let dir = try TemporaryDirectory()
        let path = dir.file("q.sqlite")
        let worker = ConnectionWorker<SQLiteConnection>(label: "test.writer")
        try await worker.open {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
            return connection
        }
        return Setup(dir: dir, worker: worker, queue: GroupCommitQueue(worker: worker))
    }

    private static func insert(_ key: Int64, on connection: SQLiteConnection) throws -> Int64 {
        try connection.withStatement("INSERT INTO t (k) VALUES (?1)") { try $0.bind(key, at: 1); try $0.step() }
        return key
    }

    /// Holds the worker inside a write until `release` is signalled, so later writes pile up;
    /// returns once the write is being applied.
    private func blockWorker(_ queue: GroupCommitQueue<SQLiteConnection>, release: DispatchSemaphore) async -> Task<Int64, any Error> {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await queue.submit { connection in
                signal.yield()
                release.wait()
                return try Self.insert(0, on: connection)
            }
        }
        for await _ in entered { break }
        return task
    }

    private func waitUntilPending(_ queue: GroupCommitQueue<SQLiteConnection>, count: Int) async {
        await queue.waitForPending(atLeast: count)
    }

    @Test func writesWaitingTogetherShareOneTransaction() async throws {
        let setup = try await makeQueue()
        let queue = setup.queue
        let release = DispatchSemaphore(value: 0)
        let first = await blockWorker(queue, release: release)
        let writes = (1 ... 50).map { key in
            Task { try await queue.submit { try Self.insert(Int64(key), on: $0) } }
        }
        await waitUntilPending(setup.queue, count: 50)
        release.signal()
        #expect(try await first.value == 0)
        for (offset, write) in writes.enumerated() { #expect(try await write.value == Int64(offset + 1)) }
        #expect(setup.queue.commitCount == 2)
    }

    @Test func oneFailingWriteDoesNotFailTheOthersInItsGroup() async throws {
        let setup = try await makeQueue()
        let queue = setup.queue
        let release = DispatchSemaphore(value: 0)
        let first = await blockWorker(queue, release: release)
        // Key 0 is taken by the blocking write, so this one hits the primary key.
        let keys: [Int64] = [1, 2, 0, 3]
        let writes = keys.map { key in Task { try await queue.submit { try Self.insert(key, on: $0) } } }
        await waitUntilPending(setup.queue, count: keys.count)
        release.signal()
        _ = try await first.value
        var results: [String] = []
        for write in writes {
            do { results.append("ok \(try await write.value)") } catch let error as SQLiteError { results.append("error \(error.code)") }
        }
        #expect(results == ["ok 1", "ok 2", "error 19", "ok 3"])
        // One for the blocking write, then the failed group retried one write at a time.
        #expect(setup.queue.commitCount == 1 + 3)
        let stored = try await setup.worker.run { connection in
            try connection.withStatement("SELECT group_concat(k) FROM (SELECT k FROM t ORDER BY k)") { try $0.step(); return $0.string(at: 0) }
        }
        #expect(stored == "0,1,2,3")
    }

    @Test func closeAnswersAcceptedWritesThenRefusesNewOnes() async throws {
        let setup = try await makeQueue()
        let queue = setup.queue
        let release = DispatchSemaphore(value: 0)
        let first = await blockWorker(queue, release: release)
        let second = Task { try await queue.submit { try Self.insert(1, on: $0) } }
        await waitUntilPending(queue, count: 1)
        let closed = Flag()
        let closing = Task {
            await queue.close()
            closed.set()
        }
        for _ in 0 ..< 1_000 { await Task.yield() }
        #expect(!closed.isSet, "close returned while a write was still waiting")
        release.signal()
        await closing.value
        // Committed before close returned: a fresh connection sees both rows.
        let connection = try SQLiteConnection(path: setup.dir.file("q.sqlite"), access: .readOnly)
        #expect(try connection.withStatement("SELECT count(*) FROM t") { try $0.step(); return $0.int64(at: 0) } == 2)
        #expect(try await first.value == 0)
        #expect(try await second.value == 1)
        await #expect(throws: StoreClosedError.self) { try await queue.submit { try Self.insert(2, on: $0) } }
    }
}

/// A flag one task sets and another polls.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
