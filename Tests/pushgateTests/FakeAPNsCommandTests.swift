import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders
import Testing
import PushgateTestSupport

/// `pushgate-dev fake-apns` as a child process, driven by the real APNs client (docs/fake-apns.md).
@Suite(.hangLimit(.minutes(1))) struct FakeAPNsCommandTests {
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"

    /// Starts the fake checking provider tokens against `key`.
    static func startFake(_ files: FakeProviderFiles, key: P256PrivateKey) async throws -> FakeProviderProcess {
        try key.pkcs8PEM.write(toFile: files.p8, atomically: true, encoding: .utf8)
        return try await FakeProviderProcess.start([
            "fake-apns", "--port", "0", "--p8", files.p8, "--key-id", keyId, "--team-id", teamId,
            "--record", files.record, "--cert-out", files.certificate,
        ])
    }

    /// Sends one alert through an ``APNsClient`` signing with `key` and trusting the fake's certificate.
    static func push(_ token: String, port: UInt16, key: P256PrivateKey, files: FakeProviderFiles) async throws -> APNsOutcome {
        let configuration = APNsConfiguration(privateKey: key, keyId: keyId, teamId: teamId,
                                              productionOrigin: HTTP2Origin(host: "127.0.0.1", port: port),
                                              extraCAFile: files.certificate)
        let client = try APNsClient(configuration: configuration, logger: Logger(component: "test", minimumLevel: .error))
        let payload = Array(#"{"aps":{"alert":{"title":"Build finished","body":"All tests passed"},"badge":2},"sessionId":"s1"}"#.utf8)
        let outcome = await client.send(try .alert(deviceToken: token, bundleId: "dev.pushgate.test", payload: payload,
                                                   collapseId: "session-s1"), environment: .production)
        await client.shutdown()
        return outcome
    }

    @Test func recordsAPushFromTheAPNsClientAndStopsOnSIGTERM() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        let key = P256PrivateKey()
        let fake = try await Self.startFake(files, key: key)
        #expect(try String(contentsOfFile: files.certificate, encoding: .utf8).hasPrefix("-----BEGIN CERTIFICATE-----\n"))

        let token = Hex.encode(SecureRandom.bytes(32))
        #expect(try await Self.push(token, port: fake.port, key: key, files: files) == .delivered)

        let records = try FakeProviderProcess.records(files.record)
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record["path"] == .string("/3/device/\(token)"))
        #expect(record["status"] == .integer(200))
        #expect(record["reason"] == .null)
        #expect(record["headers"]?["authorization"] == .string("[redacted]"))
        #expect(record["headers"]?["apns-topic"] == .string("dev.pushgate.test"))
        #expect(record["headers"]?["apns-push-type"] == .string("alert"))
        #expect(record["headers"]?["apns-collapse-id"] == .string("session-s1"))
        #expect(record["payload"] == (try JSONValue.parse(
            #"{"aps":{"alert":{"title":"Build finished","body":"All tests passed"},"badge":2},"sessionId":"s1"}"#)))

        #expect(try await !fake.stop().contains("no --p8"))
    }

    @Test func refusesProviderTokensSignedByAnotherKeyAndStopsOnSIGINT() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        let fake = try await Self.startFake(files, key: P256PrivateKey())

        let token = Hex.encode(SecureRandom.bytes(32))
        let outcome = try await Self.push(token, port: fake.port, key: P256PrivateKey(), files: files)
        #expect(outcome == .transient(reason: "InvalidProviderToken", failure: .rejected))
        let records = try FakeProviderProcess.records(files.record)
        #expect(records.count == 1)
        #expect(records.first?["status"] == .integer(403))
        #expect(records.first?["reason"] == .string("InvalidProviderToken"))

        _ = try await fake.stop(SIGINT)
    }

    @Test func credentialFlagsGoTogether() async throws {
        let partial = try await PushgateTool.runOnOwnThread(program: .dev, ["fake-apns", "--p8", "AuthKey.p8", "--key-id", Self.keyId])
        #expect(partial.status == 2)
        #expect(partial.stdout.isEmpty)
        #expect(partial.stderr.contains("--p8, --key-id and --team-id go together"))

        let missing = try await PushgateTool.runOnOwnThread(program: .dev,
            ["fake-apns", "--p8", "/nonexistent/AuthKey.p8", "--key-id", Self.keyId, "--team-id", Self.teamId])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
    }
}
