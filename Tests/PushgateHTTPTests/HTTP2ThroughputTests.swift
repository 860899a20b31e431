import Foundation
import PushgateHTTP
import PushgateTesting
import Testing
import PushgateTestSupport

/// Pushes per second over one connection to the local fake. Opt-in (it loads both cores):
/// `PUSHGATE_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter HTTP2Throughput`.
@Suite("HTTP/2 throughput", .hangLimit(.minutes(1)), .enabled(if: ProcessInfo.processInfo.environment["PUSHGATE_BENCH"] != nil))
struct HTTP2ThroughputTests {
    @Test("1000 concurrent streams, 300-byte payloads, one connection")
    func oneConnection() async throws {
        let total = Int(ProcessInfo.processInfo.environment["PUSHGATE_BENCH_REQUESTS"] ?? "") ?? 200_000
        let streams = 1000
        let fixture = try HTTP2FakeFixture(maxConcurrentStreams: streams, recording: .countersOnly) { $0.maxConnectionsPerOrigin = 1 }
        let prefix = #"{"aps":{"alert":{"title":"Build finished","body":""#
        let body = Array((prefix + String(repeating: "x", count: 300 - prefix.utf8.count - 4) + #""}}}"#).utf8)
        #expect(body.count == 300)
        let requests = (0..<streams).map { fixture.request(token: HTTP2FakeFixture.token($0), body: body) }
        _ = try await fixture.pool.send(requests[0])  // connect outside the measurement

        let started = ContinuousClock.now
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<streams {
                group.addTask { [pool = fixture.pool] in
                    var failures = 0
                    for _ in stride(from: worker, to: total, by: streams) {
                        if (try? await pool.send(requests[worker]))?.status != 200 { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("HTTP/2 throughput: \(total) pushes in \(String(format: "%.2f", seconds)) s = \(Int(Double(total) / seconds)) pushes/s, peak streams \(fixture.fake.counters.maxConcurrentStreamsSeen)")
        #expect(failures == 0)
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        await fixture.pool.shutdown()
    }
}
