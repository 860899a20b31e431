import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders
import Testing
import PushgateTestSupport

/// `pushgate-dev fake-fcm` as a child process, driven by the real FCM client (docs/fake-fcm.md).
@Suite(.hangLimit(.minutes(1))) struct FakeFCMCommandTests {
    /// The `rs256-oauth.json` service account.
    static func account() throws -> JSONObject {
        let vector = try JSONValue.parse(Array(try Data(contentsOf: PushgateTool.fixture("vectors/rs256-oauth.json"))))
        return try #require(vector["serviceAccount"]?.objectValue)
    }

    @Test func servesTheFCMClientRecordsAndStopsOnSIGTERM() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        try JSONValue.object(try Self.account()).serialized().write(toFile: files.account, atomically: true, encoding: .utf8)
        try #"{"gone-token":"unregistered"}"#.write(toFile: files.script, atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start([
            "fake-fcm", "--service-account", files.account, "--script", files.script, "--record", files.record,
            "--cert-out", files.certificate,
        ])

        let configuration = FCMConfiguration(account: try ServiceAccount(object: try Self.account()),
                                             origin: HTTP2Origin(host: "127.0.0.1", port: fake.port),
                                             tokenURI: "https://127.0.0.1:\(fake.port)/token", extraCAFile: files.certificate)
        let client = try FCMClient(configuration: configuration, logger: Logger(component: "test", minimumLevel: .error))
        #expect(await client.send(.relay(token: "live-token", envelope: "QUJD", ttlSeconds: 60)) == .sent)
        #expect(await client.send(.relay(token: "gone-token", envelope: "QUJD", ttlSeconds: 60)) == .dead(reason: "UNREGISTERED"))
        await client.shutdown()

        let records = try FakeProviderProcess.records(files.record)
        #expect(records.map { $0["kind"] } == ["token", "send", "send"])
        #expect(records.map { $0["status"] } == [200, 200, 404])
        #expect(records[2]["error"] == "NOT_FOUND")
        #expect(records[1]["message"]?["data"]?["hapi_e"] == "QUJD")
        #expect(records[1]["headers"]?["authorization"] == "[redacted]")

        #expect(try await !fake.stop().contains("no --service-account"))
    }

    @Test func badFilesStopStartUp() async throws {
        let files = try FakeProviderFiles.make()
        defer { files.remove() }
        let missing = try await PushgateTool.runOnOwnThread(program: .dev, ["fake-fcm", "--service-account", "/nonexistent/account.json"])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)

        try #"{"type":"service_account"}"#.write(toFile: files.account, atomically: true, encoding: .utf8)
        let broken = try await PushgateTool.runOnOwnThread(program: .dev, ["fake-fcm", "--service-account", files.account])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("not a service account key file"))

        try #"{"t":"vanished"}"#.write(toFile: files.script, atomically: true, encoding: .utf8)
        let script = try await PushgateTool.runOnOwnThread(program: .dev, ["fake-fcm", "--script", files.script])
        #expect(script.status == 1)
        #expect(script.stderr.contains("unknown preset vanished"))

        let port = try await PushgateTool.runOnOwnThread(program: .dev, ["fake-fcm", "--port", "70000"])
        #expect(port.status == 2)
    }
}
