import Foundation
import PushgateCore
import PushgateHTTP
import Testing
import PushgateTestSupport

/// The fault flags of `pushgate-dev fake-apns` and `pushgate-dev fake-fcm` (answer sequences,
/// `retryAfter`, `--reset-stream-every`, `--goaway-after-streams`, `--drop-after-streams`,
/// SIGUSR1, SIGHUP) against the real binary over real TLS and HTTP/2.
@Suite(.hangLimit(.minutes(1))) struct FakeProviderFaultCommandTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func apnsSequenceWithRetryAfterAndAResetEveryThirdRequest() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        try #"""
            {"\#(Self.token)":[{"status":503,"reason":"ServiceUnavailable","retryAfter":30},
                               {"status":503,"reason":"ServiceUnavailable"},{"status":200}]}
            """#.write(toFile: files.script, atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start([
            "fake-apns", "--script", files.script, "--record", files.record, "--cert-out", files.certificate, "--reset-stream-every", "3",
        ])
        let client = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        var outcomes: [String] = []
        var retryAfters: [String?] = []
        for _ in 0..<6 {
            outcomes.append(await FakeProviderClient.outcome {
                let response = try await client.apnsAlert(token: Self.token)
                retryAfters.append(response.headers.first(named: "retry-after"))
                return response
            })
        }
        await client.shutdown()
        // The reset takes no step of the sequence: the third answer is still the sequence's 200.
        #expect(outcomes == ["503", "503", "reset", "200", "200", "reset"])
        #expect(retryAfters == ["30", nil, nil, nil])

        let records = try FakeProviderProcess.records(files.record)
        #expect(records.map { $0["status"] } == [503, 503, .null, 200, 200, .null])
        #expect(records.map { $0["reset"] } == [nil, nil, true, nil, nil, true])
        #expect(records[2]["path"] == .string("/3/device/\(Self.token)"))
        #expect(records[2]["reason"] == .null)
        _ = try await fake.stop()
    }

    @Test func fcmSequenceOfPresetsWithRetryAfterAndAResetEverySecondRequest() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        let account = try FakeFCMCommandTests.account()
        try JSONValue.object(account).serialized().write(toFile: files.account, atomically: true, encoding: .utf8)
        try #"{"t":["unavailable",{"preset":"quota-exceeded","retryAfter":9},{"status":200}]}"#
            .write(toFile: files.script, atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start([
            "fake-fcm", "--service-account", files.account, "--script", files.script, "--record", files.record,
            "--cert-out", files.certificate, "--reset-stream-every", "2",
        ])
        let client = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        let accessToken = try await client.fcmAccessToken(account: try ServiceAccount(object: account))
        var outcomes: [String] = []
        var retryAfters: [String?] = []
        for _ in 0..<6 {
            outcomes.append(await FakeProviderClient.outcome {
                let response = try await client.fcmSend(token: "t", accessToken: accessToken)
                retryAfters.append(response.headers.first(named: "retry-after"))
                return response
            })
        }
        await client.shutdown()
        #expect(outcomes == ["reset", "503", "reset", "429", "reset", "200"])
        #expect(retryAfters == [nil, "9", nil])

        let records = try FakeProviderProcess.records(files.record)
        #expect(records.map { $0["kind"] } == ["token", "send", "send", "send", "send", "send", "send"])
        #expect(records.map { $0["status"] } == [200, .null, 503, .null, 429, .null, 200])
        #expect(records.map { $0["error"] } == [.null, .null, "UNAVAILABLE", .null, "RESOURCE_EXHAUSTED", .null, .null])
        #expect(records[1]["reset"] == true)
        #expect(records[1]["message"]?["token"] == "t")
        _ = try await fake.stop()
    }

    /// GOAWAY at each connection's first stream: the fake serves it, then closes the connection,
    /// so the client is left with none and opens a new one for the next request.
    @Test func goAwayAfterStreamsEndsEachConnectionAfterItsNthStream() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        let fake = try await FakeProviderProcess.start(["fake-apns", "--cert-out", files.certificate, "--goaway-after-streams", "1"])
        let client = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        for _ in 0..<2 {
            #expect(try await client.apnsAlert(token: Self.token).status == 200)
            try await withDeadline { await client.pool.statistics(for: client.origin) { $0.connections == 0 } }
        }
        await client.shutdown()
        _ = try await fake.stop()
    }

    /// The connection is closed as its second stream opens: that request is lost (not refused:
    /// there was no GOAWAY), and is not recorded since the fake never read it whole.
    @Test func dropAfterStreamsClosesTheConnectionAtItsNthStream() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        let account = try FakeFCMCommandTests.account()
        try JSONValue.object(account).serialized().write(toFile: files.account, atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start([
            "fake-fcm", "--service-account", files.account, "--record", files.record, "--cert-out", files.certificate,
            "--drop-after-streams", "2",
        ])
        let client = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        let accessToken = try await client.fcmAccessToken(account: try ServiceAccount(object: account))
        var outcomes: [String] = []
        for _ in 0..<3 { outcomes.append(await FakeProviderClient.outcome { try await client.fcmSend(token: "t", accessToken: accessToken) }) }
        await client.shutdown()
        #expect(outcomes == ["lost", "200", "lost"])
        #expect(try FakeProviderProcess.records(files.record).map { $0["kind"] } == ["token", "send"])
        _ = try await fake.stop()
    }

    /// SIGUSR1 closes the open connection under a request in flight (no GOAWAY: the request is
    /// lost, not refused), says so on standard error, and the fake goes on serving.
    @Test func sigusr1DropsEveryConnectionAndTheFakeKeepsServing() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        try #"{"\#(Self.token)":{"status":200,"delayMs":600000}}"#.write(toFile: files.script, atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start(["fake-apns", "--script", files.script, "--cert-out", files.certificate])
        let first = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        async let held = FakeProviderClient.outcome { try await first.apnsAlert(token: Self.token) }
        try await withDeadline { await first.pool.statistics(for: first.origin) { $0.openStreams == 1 } }
        fake.process.signal(SIGUSR1)
        #expect(await held == "lost")
        await first.shutdown()

        let second = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        #expect(try await second.apnsAlert(token: String(repeating: "cd", count: 32)).status == 200)
        await second.shutdown()
        #expect(try await fake.stop().contains("pushgate-dev fake-apns: dropped 1 connection (SIGUSR1)\n"))
    }

    /// SIGHUP reads the script file again: each token listed starts its sequence over. The test
    /// sends until the 503 that marks the new script, since the signal is handled on its own.
    @Test func sighupReadsTheScriptAgainAndEachSequenceStartsOver() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        try #"{"\#(Self.token)":[{"status":503},{"status":200}]}"#.write(toFile: files.script, atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start(["fake-apns", "--script", files.script, "--cert-out", files.certificate])
        let client = try FakeProviderClient(port: fake.port, caFile: files.certificate)
        #expect(try await client.apnsAlert(token: Self.token).status == 503)
        #expect(try await client.apnsAlert(token: Self.token).status == 200)
        fake.process.signal(SIGHUP)
        try await withDeadline {
            while try await client.apnsAlert(token: Self.token).status == 200 {}
        }
        #expect(try await client.apnsAlert(token: Self.token).status == 200)
        await client.shutdown()
        #expect(try await fake.stop().contains("pushgate-dev fake-apns: read \(files.script) again, 1 token(s) (SIGHUP)\n"))
    }

    @Test(arguments: [
        ("fake-apns", "--reset-stream-every", "0"),
        ("fake-apns", "--goaway-after-streams", "1000001"),
        ("fake-fcm", "--drop-after-streams", "two"),
        ("fake-fcm", "--reset-stream-every", "-1"),
    ])
    func faultCountsOutOfRangeAreUsageErrors(_ command: String, _ flag: String, _ value: String) async throws {
        let outcome = try await PushgateTool.runOnOwnThread(program: .dev, [command, flag, value])
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("\(flag) must be a whole number from 1 to 1000000"))
    }
}
