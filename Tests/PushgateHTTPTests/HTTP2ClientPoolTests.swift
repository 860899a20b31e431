import Foundation
import PushgateCore
@testable import PushgateHTTP
import PushgateTesting
import Testing
import PushgateTestSupport

@Suite("HTTP/2 client pool against the fake APNs", .hangLimit(.minutes(1)))
struct HTTP2ClientPoolTests {
    @Test("one request gets the fake's 200 and its apns-id")
    func singleRequest() async throws {
        let fixture = try HTTP2FakeFixture()
        let response = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(1)))
        #expect(response.status == 200)
        #expect(response.headers.first(named: "apns-id") != nil)
        #expect(fixture.fake.requests.first?.path == "/3/device/\(HTTP2FakeFixture.token(1))")
        await fixture.pool.shutdown()
    }

    @Test("error statuses come back with their JSON body")
    func errorBody() async throws {
        let fixture = try HTTP2FakeFixture()
        fixture.fake.script(token: HTTP2FakeFixture.token(2), ScriptedResponse(status: 400, reason: .badDeviceToken))
        let response = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(2)))
        #expect(response.status == 400)
        #expect(try JSONValue.parse(response.body) == ["reason": "BadDeviceToken"])
        #expect(!response.bodyTruncated)
        await fixture.pool.shutdown()
    }

    @Test("response bodies are cut at the configured size")
    func bodyCap() async throws {
        let fixture = try HTTP2FakeFixture { $0.maxResponseBodyBytes = 10 }
        fixture.fake.script(token: HTTP2FakeFixture.token(3), ScriptedResponse(status: 400, reason: .badDeviceToken))
        let response = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(3)))
        #expect(response.body == Array(#"{"reason":"#.utf8))
        #expect(response.bodyTruncated)
        await fixture.pool.shutdown()
    }

    @Test("many concurrent requests share one connection")
    func multiplexing() async throws {
        let fixture = try HTTP2FakeFixture()
        let results = await fixture.sendAll((0..<300).map { fixture.request(token: HTTP2FakeFixture.token($0)) })
        #expect(results.map(outcome) == Array(repeating: "200", count: 300))
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        // Every answer was published with its pass's statistics: the streams are closed already.
        #expect(fixture.pool.statistics(for: fixture.origin) == HTTP2OriginStatistics(connections: 1, openStreams: 0, waitingRequests: 0))
        await fixture.pool.shutdown()
    }

    @Test("never more open streams than the server's SETTINGS_MAX_CONCURRENT_STREAMS")
    func streamLimit() async throws {
        let fixture = try HTTP2FakeFixture(maxConcurrentStreams: 10) { $0.maxConnectionsPerOrigin = 1 }
        for index in 0..<60 { fixture.fake.script(token: HTTP2FakeFixture.token(index), .success(afterMilliseconds: 20)) }
        let results = await fixture.sendAll((0..<60).map { fixture.request(token: HTTP2FakeFixture.token($0)) })
        #expect(results.map(outcome) == Array(repeating: "200", count: 60))
        #expect(fixture.fake.counters.maxConcurrentStreamsSeen == 10)
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        await fixture.pool.shutdown()
    }

    @Test("a second connection opens only while the first is saturated, up to the limit")
    func extraConnections() async throws {
        let fixture = try HTTP2FakeFixture(maxConcurrentStreams: 5) { $0.maxConnectionsPerOrigin = 3 }
        // Warm up: one connection, not saturated, so the next single request reuses it.
        _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(0)))
        _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(1)))
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        for index in 0..<40 { fixture.fake.script(token: HTTP2FakeFixture.token(index), .success(afterMilliseconds: 50)) }
        let results = await fixture.sendAll((0..<40).map { fixture.request(token: HTTP2FakeFixture.token($0)) })
        #expect(results.map(outcome) == Array(repeating: "200", count: 40))
        #expect(fixture.fake.counters.connectionsAccepted == 3)
        #expect(fixture.fake.counters.maxConcurrentStreamsSeen <= 5)
        await fixture.pool.shutdown()
    }

    @Test("GOAWAY mid-burst: every request is answered exactly once")
    func goawayMidBurst() async throws {
        let fixture = try HTTP2FakeFixture()
        fixture.fake.goAway(afterStreams: 60)
        let tokens = (0..<100).map(HTTP2FakeFixture.token)
        let results = await fixture.sendAll(tokens.map { fixture.request(token: $0) })
        #expect(results.map(outcome) == Array(repeating: "200", count: 100))
        let served = fixture.fake.requests.compactMap(\.deviceToken)
        #expect(served.sorted() == tokens.sorted())
        #expect(fixture.fake.counters.goAwaysSent == 1)
        #expect(fixture.fake.counters.connectionsAccepted == 2)
        await fixture.pool.shutdown()
    }

    @Test("a request refused by GOAWAY twice fails as refused and is not sent a third time")
    func refusedTwice() async throws {
        let fixture = try HTTP2FakeFixture(maxConcurrentStreams: 1) { $0.maxConnectionsPerOrigin = 1 }
        fixture.fake.goAway(afterStreams: 2)
        // A holds the only stream while B…E queue up in the pool.
        fixture.fake.script(token: HTTP2FakeFixture.token(0), .success(afterMilliseconds: 200))
        async let first = fixture.sendAll([fixture.request(token: HTTP2FakeFixture.token(0))])
        await fixture.waitForFake(requests: 1)
        async let burst = fixture.sendAll((1...4).map { fixture.request(token: HTTP2FakeFixture.token($0)) })
        await fixture.pool.statistics(for: fixture.origin) { $0.waitingRequests == 4 }
        // Raising the limit releases B…E in one write: B is served, C…E are refused, go to a second
        // connection together, where two are served and the third is refused again.
        fixture.fake.setMaxConcurrentStreams(10)
        let outcomes = await (first + burst).map(outcome)
        #expect(outcomes.sorted() == ["200", "200", "200", "200", "refused"])
        #expect(fixture.fake.requests.count == 4)
        #expect(Set(fixture.fake.requests.compactMap(\.deviceToken)).count == 4)
        #expect(fixture.fake.counters.connectionsAccepted == 2)
        await fixture.pool.shutdown()
    }

    @Test("a late answer times out, the stream is reset, and the connection stays usable")
    func deadline() async throws {
        let fixture = try HTTP2FakeFixture()
        fixture.fake.script(token: HTTP2FakeFixture.token(1), .success(afterMilliseconds: 10_000))
        let started = ContinuousClock.now
        await #expect(throws: HTTP2ClientError(.timeout, detail: "no response from \(fixture.origin) before the deadline").afterWrite()) {
            _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(1), timeoutMilliseconds: 150))
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        let response = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(2)))
        #expect(response.status == 200)
        #expect(fixture.fake.counters.connectionsAccepted == 1)
        await fixture.pool.shutdown()
    }

    @Test("timed-out streams are reset, not leaked: the stream limit is free again")
    func resetStreamsFreeSlots() async throws {
        let fixture = try HTTP2FakeFixture(maxConcurrentStreams: 2) { $0.maxConnectionsPerOrigin = 1 }
        for index in 0..<2 { fixture.fake.script(token: HTTP2FakeFixture.token(index), .success(afterMilliseconds: 5_000)) }
        let slow = await fixture.sendAll((0..<2).map { fixture.request(token: HTTP2FakeFixture.token($0), timeoutMilliseconds: 100) })
        #expect(slow.map(outcome) == ["timeout", "timeout"])
        let fast = await fixture.sendAll((2..<6).map { fixture.request(token: HTTP2FakeFixture.token($0), timeoutMilliseconds: 2_000) })
        #expect(fast.map(outcome) == Array(repeating: "200", count: 4))
        await fixture.pool.shutdown()
    }

    @Test("a dropped connection fails its open request; the next request reconnects")
    func serverDrop() async throws {
        let fixture = try HTTP2FakeFixture()
        fixture.fake.dropConnections(afterStreams: 2)
        let first = await fixture.sendAll([fixture.request(token: HTTP2FakeFixture.token(1))])
        let second = await fixture.sendAll([fixture.request(token: HTTP2FakeFixture.token(2))])
        fixture.fake.dropConnections(afterStreams: nil)
        let third = await fixture.sendAll([fixture.request(token: HTTP2FakeFixture.token(3))])
        #expect((first + second + third).map(outcome) == ["200", "connection lost", "200"])
        #expect(fixture.fake.counters.connectionsAccepted == 2)
        await fixture.pool.shutdown()
    }

    @Test("dropping every connection while requests wait: they fail, later ones succeed on a new connection")
    func dropWhileInFlight() async throws {
        let fixture = try HTTP2FakeFixture()
        _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(0)))
        for index in 1...5 { fixture.fake.script(token: HTTP2FakeFixture.token(index), .success(afterMilliseconds: 10_000)) }
        async let inFlight = fixture.sendAll((1...5).map { fixture.request(token: HTTP2FakeFixture.token($0)) })
        // The scripted delay keeps them open; wait until the fake has seen all five.
        await fixture.waitForFake(requests: 6)
        fixture.fake.dropConnectionsNow()
        #expect(await inFlight.map(outcome) == Array(repeating: "connection lost", count: 5))
        let after = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(9)))
        #expect(after.status == 200)
        #expect(fixture.fake.counters.connectionsAccepted == 2)
        await fixture.pool.shutdown()
    }

    @Test("too many waiting requests: the excess fails with queueFull at once")
    func queueBound() async throws {
        let fixture = try HTTP2FakeFixture(maxConcurrentStreams: 1) {
            $0.maxConnectionsPerOrigin = 1
            $0.maxQueuedRequestsPerOrigin = 5
        }
        _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(0)))
        for index in 1...12 { fixture.fake.script(token: HTTP2FakeFixture.token(index), .success(afterMilliseconds: 30)) }
        let results = await fixture.sendAll((1...12).map { fixture.request(token: HTTP2FakeFixture.token($0)) })
        let outcomes = results.map(outcome)
        #expect(outcomes.filter { $0 == "queue full" }.count >= 5)
        #expect(outcomes.filter { $0 == "200" }.count >= 5)
        #expect(outcomes.allSatisfy { $0 == "200" || $0 == "queue full" })
        await fixture.pool.shutdown()
    }

    @Test("cancelling the calling task resets the stream and throws cancelled")
    func cancellation() async throws {
        let fixture = try HTTP2FakeFixture()
        _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(0)))
        fixture.fake.script(token: HTTP2FakeFixture.token(1), .success(afterMilliseconds: 10_000))
        let task = Task { [pool = fixture.pool, request = fixture.request(token: HTTP2FakeFixture.token(1))] in
            try await pool.send(request)
        }
        await fixture.waitForFake(requests: 2)
        task.cancel()
        await #expect { _ = try await task.value } throws: { ($0 as? HTTP2ClientError)?.kind == .cancelled }
        await fixture.pool.shutdown()
    }

    @Test("a task cancelled before it sends: its cancellation reaches the loop after the request, which fails at once")
    func cancelledBeforeSending() async throws {
        // The peer never sends SETTINGS and the clock never moves: only the cancellation can end
        // this request.
        let peer = try HTTP2RawPeer(alpn: ["h2"], sendsSettings: false)
        let pool = try HTTP2ClientPool(clock: ManualClock(), logger: Logger(component: "test", minimumLevel: .error))
        let origin = HTTP2Origin(host: "127.0.0.1", port: peer.port)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.send(HTTP2Request(origin: origin, path: "/"))
        }
        await #expect { _ = try await task.value } throws: { ($0 as? HTTP2ClientError)?.kind == .cancelled }
        await pool.shutdown()
        peer.stop()
    }

    @Test("shutdown lets accepted requests finish, then refuses new ones")
    func shutdown() async throws {
        let fixture = try HTTP2FakeFixture()
        fixture.fake.script(token: HTTP2FakeFixture.token(1), .success(afterMilliseconds: 100))
        async let pending = fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(1)))
        await fixture.waitForFake(requests: 1)
        await fixture.pool.shutdown()
        #expect(try await pending.status == 200)
        await #expect { _ = try await fixture.pool.send(fixture.request(token: HTTP2FakeFixture.token(2))) } throws: {
            ($0 as? HTTP2ClientError)?.kind == .shutdown
        }
        await fixture.pool.shutdown()  // a second shutdown returns at once
    }

    @Test("an untrusted server certificate fails with a clear TLS error")
    func untrustedServer() async throws {
        let fake = try FakeAPNs()
        let pool = try HTTP2ClientPool(logger: Logger(component: "test", minimumLevel: .error))
        let origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
        await #expect { _ = try await pool.send(HTTP2Request(origin: origin, path: "/")) } throws: { error in
            let error = error as? HTTP2ClientError
            return error?.kind == .connectFailed && error?.tls?.kind == .certificateNotTrusted
        }
        await pool.shutdown()
        fake.stop()
    }

    @Test("a server that does not speak h2 is refused with alpnRefused", arguments: [["http/1.1"], []])
    func serverWithoutH2(alpn: [String]) async throws {
        let peer = try HTTP2RawPeer(alpn: alpn, sendsSettings: false)
        let caFile = try TemporaryFile(contents: peer.certificatePEM)
        var configuration = HTTP2ClientConfiguration(extraCAFile: caFile.path)
        // A peer thread busy with an earlier handshake must not stall the retry for the default 10 s.
        configuration.connectTimeoutMilliseconds = 1_000
        let pool = try HTTP2ClientPool(configuration: configuration, logger: Logger(component: "test", minimumLevel: .error))
        let origin = HTTP2Origin(host: "127.0.0.1", port: peer.port)
        await #expect { _ = try await pool.send(HTTP2Request(origin: origin, path: "/")) } throws: { error in
            let error = error as? HTTP2ClientError
            return error?.kind == .connectFailed && error?.tls?.kind == .alpnRefused
        }
        await pool.shutdown()
        peer.stop()
    }

    @Test("a server that never sends SETTINGS fails the connection at the connect timeout")
    func connectTimeout() async throws {
        let peer = try HTTP2RawPeer(alpn: ["h2"], sendsSettings: false)
        let caFile = try TemporaryFile(contents: peer.certificatePEM)
        var configuration = HTTP2ClientConfiguration(extraCAFile: caFile.path)
        configuration.connectTimeoutMilliseconds = 100
        configuration.timerGranularityMilliseconds = 10
        let pool = try HTTP2ClientPool(configuration: configuration, logger: Logger(component: "test", minimumLevel: .error))
        let origin = HTTP2Origin(host: "127.0.0.1", port: peer.port)
        await #expect { _ = try await pool.send(HTTP2Request(origin: origin, path: "/")) } throws: { error in
            (error as? HTTP2ClientError)?.kind == .connectFailed
        }
        await pool.shutdown()
        peer.stop()
    }
}
