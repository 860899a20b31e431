import Foundation
import PushgateCore
import PushgateHTTP
import Testing
@testable import PushgateTesting
import PushgateTestSupport

/// What `pushgate-dev fake-apns` runs: scripts from the file's format, the certificate written for
/// the client, and one JSON line per request in the record file.
@Suite(.hangLimit(.minutes(1))) struct FakeAPNsCommandLineTests {
    @Test func recordFileHoldsOneCompactLinePerRequest() async throws {
        let directory = try TemporaryDirectory.create("fake-apns-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let vector = try TestFixtures.providerToken()
        let key = try P256PrivateKey(pkcs8PEM: vector.p8PEM)
        let dead = LoopbackHarness.token(2)

        var options = FakeProviderCommandLine<FakeAPNs>.Options()
        options.credentials = try FakeAPNs.ProviderCredentials(p8PEM: vector.p8PEM, keyId: vector.keyId, teamId: vector.teamId)
        options.scripts = try FakeAPNsScriptFile.parse(Array(#"{"\#(dead)":{"status":410,"reason":"Unregistered"}}"#.utf8))
        options.recordPath = directory.appendingPathComponent("requests.jsonl").path
        options.certificateOutputPath = directory.appendingPathComponent("fake-apns.pem").path
        let fake = try FakeProviderCommandLine<FakeAPNs>.start(options)
        defer { fake.stop() }

        let pool = try HTTP2ClientPool(
            configuration: HTTP2ClientConfiguration(extraCAFile: options.certificateOutputPath),
            logger: Logger(component: "test", minimumLevel: .error))
        let jwt = APNsProviderToken.make(key: key, keyId: vector.keyId, teamId: vector.teamId, issuedAt: SystemClock().nowMilliseconds / 1000)
        for token in [LoopbackHarness.token(1), dead] {
            let response = try await pool.send(HTTP2Request(
                origin: HTTP2Origin(host: "127.0.0.1", port: fake.port), path: "/3/device/\(token)",
                headers: [HTTP2Header("authorization", "bearer \(jwt)"), HTTP2Header("apns-topic", "com.example.app"),
                          HTTP2Header("apns-push-type", "alert")],
                body: Array(#"{"aps":{"alert":{"title":"T"}}}"#.utf8)))
            #expect(response.status == (token == dead ? 410 : 200))
        }
        await pool.shutdown()

        let text = try String(contentsOfFile: options.recordPath!, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "")
        let records = try lines.dropLast().map { try JSONValue.parse(String($0)) }
        func expected(_ token: String, _ status: Int64, _ reason: JSONValue) -> JSONValue {
            .object(JSONObject([
                ("path", .string("/3/device/\(token)")),
                ("headers", ["authorization": "[redacted]", "apns-topic": "com.example.app", "apns-push-type": "alert"]),
                ("payload", ["aps": ["alert": ["title": "T"]]]),
                ("status", .integer(status)),
                ("reason", reason),
            ]))
        }
        #expect(records == [expected(LoopbackHarness.token(1), 200, .null), expected(dead, 410, "Unregistered")])
        #expect(!text.contains(jwt))
        #expect(fake.requests.isEmpty, "the command keeps records in the file only")
        let mode = try FileManager.default.attributesOfItem(atPath: options.recordPath!)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
