import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateTesting
import PushgateTestSupport

/// protocol/signed-relay.md §10 lines 25 (kill -9), 27 (SIGTERM) and 28 (invalid configuration),
/// against the built `pushgate-relay` binary.
@Suite(.serialized, .hangLimit(.minutes(1))) struct LifecycleConformanceTests {
    @Test func registerAnsweredBeforeKillNineSurvives() async throws {
        let directory = try TemporaryDirectory.create("relay-proc")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.expectRegisterSurvivesKillNine(database: [
            "PUSHGATE_RELAY_DATABASE_PATH": directory.appendingPathComponent("relay.sqlite").path,
        ])
    }

    /// Registers through a relay child process on `database` (its store settings), kills it
    /// with SIGKILL right after the 200, and sends through a second process on the same store.
    static func expectRegisterSurvivesKillNine(database: [String: String]) async throws {
        let environment = database.merging(["PUSHGATE_RELAY_PORT": "0", "PUSHGATE_RELAY_DRY_RUN": "true",
                                                  "PUSHGATE_RELAY_METRICS_LISTEN": "off"]) { $1 }
        let key = P256PrivateKey()
        let token = TestToken.make()
        let first = try RelayProcess(environment: environment)
        let port = try #require(await onOwnThread { first.port() })
        #expect(try await SignedRelayClient(baseURL: "http://127.0.0.1:\(port)", key: key).registerToken(token).status == 200)
        first.signal(SIGKILL)
        _ = try await onOwnThread { first.exitStatus() }
        let second = try RelayProcess(environment: environment)
        let secondPort = try #require(await onOwnThread { second.port() })
        let reply = try await SignedRelayClient(baseURL: "http://127.0.0.1:\(secondPort)", key: key).send(tokens: [token], title: "after crash")
        #expect(reply.results.map(\.ok) == [true])
        second.signal(SIGTERM)
        #expect(try await onOwnThread { second.exitStatus() }.status == 0)
    }

    @Test func sigtermRefusesNewConnectionsLetsInFlightFinishAndExitsZero() async throws {
        let directory = try TemporaryDirectory.create("relay-proc")
        defer { try? FileManager.default.removeItem(at: directory) }
        let apnsKey = P256PrivateKey()
        var configuration = FakeAPNs.Configuration()
        configuration.credentials = .init(publicKey: apnsKey.publicKey, keyId: "KEYID12345", teamId: "TEAMID1234")
        let fake = try FakeAPNs(configuration: configuration)
        defer { fake.stop() }
        let caFile = directory.appendingPathComponent("ca.pem").path
        try fake.writeCertificate(to: caFile)
        let relay = try RelayProcess(environment: fake.relayEnvironment(
            apnsKey: apnsKey, keyId: "KEYID12345", teamId: "TEAMID1234", bundleId: "dev.pushgate.tests", caFile: caFile,
            databasePath: directory.appendingPathComponent("r.sqlite").path))
        let port = try #require(await onOwnThread { relay.port() })
        let host = SignedRelayClient(baseURL: "http://127.0.0.1:\(port)", key: P256PrivateKey())
        let token = TestToken.make()
        #expect(try await host.registerToken(token).status == 200)
        fake.script(token: token, .success(afterMilliseconds: 1_500))
        let send = Task { try await host.send(tokens: [token], title: "slow") }
        // Wait until the fake holds the request open, then ask the relay to stop.
        try await fake.waitForRequests(1)
        relay.signal(SIGTERM)
        _ = try await onOwnThread { relay.waitForLog("stopped accepting") }
        await #expect(throws: (any Error).self) {
            try await SignedRelayClient(baseURL: "http://127.0.0.1:\(port)", key: P256PrivateKey()).registerToken(TestToken.make())
        }
        #expect(try await send.value.results.map(\.ok) == [true], "the in-flight delivery finished")
        #expect(try await onOwnThread { relay.exitStatus() }.status == 0)
    }

    @Test func invalidConfigurationNamesTheSettingWithoutSecrets() async throws {
        let badPort = try RelayProcess(environment: ["PUSHGATE_RELAY_PORT": "99999", "PUSHGATE_RELAY_DRY_RUN": "1"])
        let portResult = try await onOwnThread { badPort.exitStatus() }
        #expect(portResult.status == 2 && portResult.stderr.contains("PUSHGATE_RELAY_PORT"))
        let secret = "SECRET-P8-MATERIAL-XYZ"
        let missingKey = try RelayProcess(environment: ["PUSHGATE_RELAY_APNS_P8": secret, "PUSHGATE_RELAY_APNS_TEAM_ID": "T",
                                                        "PUSHGATE_RELAY_APNS_BUNDLE_ID": "b"])
        let keyResult = try await onOwnThread { missingKey.exitStatus() }
        #expect(keyResult.status == 2 && keyResult.stderr.contains("APNS_KEY_ID") && !keyResult.stderr.contains(secret))
        let badP8 = try RelayProcess(environment: ["PUSHGATE_RELAY_APNS_P8": secret, "PUSHGATE_RELAY_APNS_TEAM_ID": "T",
                                                   "PUSHGATE_RELAY_APNS_KEY_ID": "K", "PUSHGATE_RELAY_APNS_BUNDLE_ID": "b",
                                                   "PUSHGATE_RELAY_DATABASE_PATH": ":memory:"])
        let p8Result = try await onOwnThread { badP8.exitStatus() }
        #expect(p8Result.status == 2 && p8Result.stderr.contains("APNS_P8") && !p8Result.stderr.contains(secret))
    }
}
