import PushgateCore
import PushgateHTTP
import PushgateTesting
import Testing
import PushgateTestSupport

@Suite("HTTP/2 keep-alive and back-off on a manual clock", .hangLimit(.minutes(1)))
struct HTTP2ManualClockTests {
    private static func pool(trusting pem: String?, clock: ManualClock, caFile: inout TemporaryFile?) throws -> HTTP2ClientPool {
        if let pem { caFile = try TemporaryFile(contents: pem) }
        var configuration = HTTP2ClientConfiguration(extraCAFile: caFile?.path)
        configuration.idlePingIntervalMilliseconds = 1_000
        configuration.pingTimeoutMilliseconds = 500
        configuration.reconnectBaseDelayMilliseconds = 100
        configuration.requestTimeoutMilliseconds = 3_600_000
        configuration.timerGranularityMilliseconds = 5
        return try HTTP2ClientPool(configuration: configuration, clock: clock, logger: Logger(component: "test", minimumLevel: .error))
    }

    @Test("an idle connection is PINGed; one that stays silent is declared dead and its request fails")
    func silentPeer() async throws {
        let peer = try HTTP2RawPeer(alpn: ["h2"], sendsSettings: true)
        let clock = ManualClock()
        var caFile: TemporaryFile?
        let pool = try Self.pool(trusting: peer.certificatePEM, clock: clock, caFile: &caFile)
        let origin = HTTP2Origin(host: "127.0.0.1", port: peer.port)
        let request = Task { try await pool.send(HTTP2Request(origin: origin, path: "/")) }
        var frames = peer.frameTypes.makeAsyncIterator()
        while let type = await frames.next(), type != 1 {}  // HEADERS: the request is out
        clock.advance(milliseconds: 999)
        clock.advance(milliseconds: 1)
        while let type = await frames.next(), type != 6 {}  // PING
        clock.advance(milliseconds: 500)
        await #expect { _ = try await request.value } throws: { error in
            let error = error as? HTTP2ClientError
            return error?.kind == .connectionLost && error?.detail.contains("PING") == true
        }
        await pool.shutdown()
        peer.stop()
    }

    @Test("failed connections back off exponentially before the next attempt")
    func backoff() async throws {
        let fake = try FakeAPNs()
        let clock = ManualClock()
        var caFile: TemporaryFile?
        let pool = try Self.pool(trusting: nil, clock: clock, caFile: &caFile)  // the fake's certificate is not trusted
        let origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
        let first = await #expect(throws: HTTP2ClientError.self) { try await pool.send(HTTP2Request(origin: origin, path: "/")) }
        #expect(first?.tls?.kind == .certificateNotTrusted)
        #expect(fake.counters.connectionsAccepted == 1)

        // 100 ms back-off: the next request waits for the clock, then the attempt fails again. The
        // statistics of a pass are published before its callers resume, so they show the first
        // request gone, and waiting == 1 means the second one reached the pool.
        let second = Task { try await pool.send(HTTP2Request(origin: origin, path: "/")) }
        await pool.statistics(for: origin) { $0.waitingRequests == 1 }
        #expect(fake.counters.connectionsAccepted == 1)
        clock.advance(milliseconds: 100)
        let secondError = await #expect(throws: HTTP2ClientError.self) { try await second.value }
        #expect(secondError?.tls?.kind == .certificateNotTrusted)
        #expect(fake.counters.connectionsAccepted == 2)

        // Now 200 ms: a request with a 150 ms deadline expires without any new attempt.
        await #expect {
            async let third = pool.send(HTTP2Request(origin: origin, path: "/", timeoutMilliseconds: 150))
            // Waiting in the pool, so its deadline was read before the clock moves.
            await pool.statistics(for: origin) { $0.waitingRequests == 1 }
            clock.advance(milliseconds: 150)
            _ = try await third
        } throws: { ($0 as? HTTP2ClientError)?.kind == .timeout }
        #expect(fake.counters.connectionsAccepted == 2)
        await pool.shutdown()
        fake.stop()
    }
}
