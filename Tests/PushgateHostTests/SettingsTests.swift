import Foundation
import PushgateCore
@testable import PushgateHost
import Testing

/// protocol/host-api.md §9 lines 1 and 2: home, settings.json, identity and access token.
@Suite struct SettingsTests {
    @Test func firstStartCreatesIdentityAndSecondStartReusesIt() throws {
        let home = TemporaryHome()
        let first = try HostSettings.load(environment: home.environment())
        #expect(try home.mode(of: home.path) == 0o700)
        #expect(try home.mode(of: home.settingsPath) == 0o600)
        let stored = try SettingsFile(path: home.settingsPath).read()
        #expect(stored["relaySigningKey"]?["privateJwk"]?["d"]?.stringValue != nil)
        #expect(stored["relaySigningKey"]?["publicJwk"]?["d"] == nil)
        #expect(try Base64URL.decode(first.accessToken).count == 32)
        let second = try HostSettings.load(environment: home.environment())
        #expect(second.serverId == first.serverId)
        #expect(second.accessToken == first.accessToken)
        #expect(first.listenHost == "127.0.0.1" && first.listenPort == 8789)
        #expect(first.iosPushMode == .relay)
    }

    @Test func corruptKeyRefusesToStartAndWritesNothing() throws {
        let home = TemporaryHome()
        _ = try HostSettings.load(environment: home.environment())
        let file = SettingsFile(path: home.settingsPath)
        try file.update { object in
            object["relaySigningKey"] = .object(JSONObject([("privateJwk", .object(JSONObject([("kty", "EC")])))]))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: home.settingsPath))
        #expect(throws: HostSettingsError.self) { try HostSettings.load(environment: home.environment(["PUSHGATE_HOST_LISTEN": "127.0.0.1:9"])) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.settingsPath)) == before)
        #expect(!FileManager.default.fileExists(atPath: home.path + "/host.sqlite"))
        #expect(throws: HostSettingsError.self) { try HostSettings.load(environment: home.environment()) }
    }

    @Test func envValuePersistedOnceAndStillWinsAtRunTime() throws {
        let home = TemporaryHome()
        let first = try HostSettings.load(environment: home.environment(["PUSHGATE_HOST_LISTEN": "127.0.0.1:9001"]))
        #expect(first.listenPort == 9001)
        #expect(try SettingsFile(path: home.settingsPath).read()["listen"] == "127.0.0.1:9001")
        let second = try HostSettings.load(environment: home.environment(["PUSHGATE_HOST_LISTEN": "127.0.0.1:9002"]))
        #expect(second.listenPort == 9002)
        #expect(try SettingsFile(path: home.settingsPath).read()["listen"] == "127.0.0.1:9001")
        let third = try HostSettings.load(environment: home.environment())
        #expect(third.listenPort == 9001)
        let token = try HostSettings.load(environment: home.environment(["PUSHGATE_HOST_ACCESS_TOKEN": "from-env"]))
        #expect(token.accessToken == "from-env")
        #expect(try SettingsFile(path: home.settingsPath).read()["accessToken"] == .string(first.accessToken))
    }

    @Test func tildePathsExpandAndUnknownKeysSurvive() throws {
        let home = TemporaryHome()
        let fakeHome = home.path + "-user"
        var environment = home.environment(["HOME": fakeHome])
        environment["PUSHGATE_HOME"] = "~/.pushgate"
        let settings = try HostSettings.load(environment: environment)
        #expect(settings.home == fakeHome + "/.pushgate")
        let file = SettingsFile(path: settings.home + "/settings.json")
        try file.update { $0["someFutureKey"] = .object(JSONObject([("nested", 1)])) }
        let rotated = try HostSettings.rotateIdentity(in: file)
        _ = try HostSettings.load(environment: environment.merging(["PUSHGATE_PUSH_RELAY_URL": "https://relay.test"]) { $1 })
        let stored = try file.read()
        #expect(stored["someFutureKey"]?["nested"] == 1)
        #expect(stored["pushRelayUrl"] == "https://relay.test")
        #expect(try SigningIdentity.read(from: stored)?.publicKey.serverId == rotated.publicKey.serverId)
        #expect(HomePath.expand("~/keys/a.p8", environment: ["HOME": "/h"]) == "/h/keys/a.p8")
        #expect(HomePath.expand("/abs/~x", environment: ["HOME": "/h"]) == "/abs/~x")
    }

    /// protocol/hapi-push.md §6: an unknown iOS mode is relay with a warning; broken apns settings turn iOS off, named.
    @Test func invalidValuesAreNamedInDiagnostics() throws {
        let home = TemporaryHome()
        let unknown = try HostSettings.load(environment: home.environment(["PUSHGATE_IOS_PUSH": "pigeon"]))
        #expect(unknown.iosPushMode == .relay && unknown.diagnostics.contains { $0.contains("iosPushMode") })
        let missing = TemporaryHome()
        let apns = try HostSettings.load(environment: missing.environment(["PUSHGATE_IOS_PUSH": "apns"]))
        #expect(apns.iosPushMode == .off && apns.directAPNs == nil)
        #expect(apns.diagnostics.contains { $0.contains("PUSHGATE_APNS_KEY_ID") })
        #expect(throws: HostSettingsError.self) { try HostSettings.load(environment: home.environment(["PUSHGATE_LOG_LEVEL": "loud"])) }
    }
}

/// docs/security.md: a relay reached over plain http on another machine exposes what the host sends.
@Suite struct RelayURLWarningTests {
    @Test func aPlainHTTPRelayURLBeyondThisMachineIsWarnedAboutAtStart() throws {
        let cases = [("http://192.0.2.7:8788", true), ("http://relay.example", true), ("http://127.0.0.1:8788", false),
                     ("http://127.1.2.3", false), ("http://localhost:8788", false), ("http://[::1]:8788", false),
                     ("https://relay.example", false)]
        for (url, warned) in cases {
            let home = TemporaryHome()
            let settings = try HostSettings.load(environment: home.environment(["PUSHGATE_PUSH_RELAY_URL": url]))
            #expect(settings.warnings.contains { $0.contains("plain http") } == warned, "\(url)")
            #expect(settings.relayURL == url, "still used")
        }
    }
}
