import Foundation
import PushgateCore
import PushgateHTTP
import PushgateTesting
import Synchronization
import Testing
import PushgateTestSupport

/// Client pools have no thread of their own: they share the process's HTTP/2 loop, or run on a
/// loop the caller gives them, and one pool's shutdown leaves the loop serving the others.
@Suite("HTTP/2 client pools on a shared event loop", .hangLimit(.minutes(1)))
struct HTTP2SharedLoopTests {
    private static func pool(trusting fixture: HTTP2FakeFixture, caFile: TemporaryFile, loop: EpollEventLoop? = nil) throws -> HTTP2ClientPool {
        try HTTP2ClientPool(configuration: HTTP2ClientConfiguration(extraCAFile: caFile.path),
                            logger: Logger(component: "test", minimumLevel: .error), loop: loop)
    }

    /// Names of this process's threads.
    private static func threadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
            try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("pools created without a loop share one pushgate-h2 thread; shutting one down leaves the other working")
    func processLoop() async throws {
        let fixture = try HTTP2FakeFixture()
        let caFile = try TemporaryFile(contents: fixture.fake.certificatePEM)
        let other = try Self.pool(trusting: fixture, caFile: caFile)
        #expect(try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(1))).status == 200)
        #expect(try await other.send(fixture.request(token: HTTP2FakeFixture.token(2))).status == 200)
        // Every pool of the test process, this suite's and those of suites running beside it, is on it.
        #expect(try Self.threadNames().filter { $0 == "pushgate-h2" }.count == 1)

        await fixture.pool.shutdown()
        await #expect { _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(3))) } throws: {
            ($0 as? HTTP2ClientError)?.kind == .shutdown
        }
        #expect(try await other.send(fixture.request(token: HTTP2FakeFixture.token(4))).status == 200)
        await other.shutdown()
    }

    @Test("pools on a caller's loop run there; after both shut down the loop still serves")
    func callersLoop() async throws {
        let loop = try EpollEventLoop()
        let fixture = try HTTP2FakeFixture()
        let caFile = try TemporaryFile(contents: fixture.fake.certificatePEM)
        let first = try Self.pool(trusting: fixture, caFile: caFile, loop: loop)
        let second = try Self.pool(trusting: fixture, caFile: caFile, loop: loop)
        let answers = try await [first.send(fixture.request(token: HTTP2FakeFixture.token(1))),
                                 second.send(fixture.request(token: HTTP2FakeFixture.token(2)))]
        #expect(answers.map(\.status) == [200, 200])
        #expect(fixture.fake.counters.connectionsAccepted == 2)

        await first.shutdown()
        #expect(try await second.send(fixture.request(token: HTTP2FakeFixture.token(3))).status == 200)
        await second.shutdown()
        let served = Mutex(false)
        loop.executeAndWait { served.withLock { $0 = true } }
        #expect(served.withLock { $0 })
        loop.close()
    }
}
