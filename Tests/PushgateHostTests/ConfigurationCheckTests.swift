import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTestSupport
import PushgateTesting
import Testing

/// `pushgate-host --check-config`, run as the built binary: it writes nothing (no home, no
/// settings.json, no identity), reads every file a setting names, shows no secret, and exits 2
/// naming each setting it could not use.
@Suite(.hangLimit(.minutes(1))) struct ConfigurationCheckTests {
    @Test func aFreshHomeIsCheckedWithoutBeingMade() async throws {
        let home = TemporaryHome()
        let token = "access-token-SECRET-\(UUID().uuidString)"
        let outcome = try await SettingsTableTests.host(["--check-config"], environment: home.environment([
            "PUSHGATE_HOST_ACCESS_TOKEN": token, "PUSHGATE_HOST_LISTEN": "127.0.0.1:8790", "PUSHGATE_IOS_PUSH": "off",
        ]))
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("the configuration is valid"))
        #expect(outcome.stdout.contains("PUSHGATE_HOST_LISTEN = 127.0.0.1:8790  [PUSHGATE_HOST_LISTEN]"))
        #expect(outcome.stdout.contains("make the home \(home.path)") && outcome.stdout.contains("make a new identity"))
        #expect(outcome.stdout.contains("PUSHGATE_HOST_ACCESS_TOKEN = (secret, not shown)") && !outcome.stdout.contains(token))
        #expect(!FileManager.default.fileExists(atPath: home.path), "the check made the home")
    }

    @Test func anExistingHomeShowsItsIdentityAndSettingsFromTheFile() async throws {
        let home = TemporaryHome()
        let settings = try HostSettings.load(environment: home.environment(["PUSHGATE_OUTBOX_MAX": "500"]))
        let before = try Data(contentsOf: URL(fileURLWithPath: home.settingsPath))
        let outcome = try await SettingsTableTests.host(["--check-config"], environment: home.environment())
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("sign as serverId \(settings.serverId)"))
        #expect(outcome.stdout.contains("PUSHGATE_OUTBOX_MAX = 500  [settings.json outboxMax]"))
        #expect(!outcome.stdout.contains(settings.accessToken))
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.settingsPath)) == before, "the check wrote settings.json")
    }

    @Test func settingsTheHostCouldNotUseExitTwoNamingThem() async throws {
        let directory = try TemporaryDirectory.create("host-check").path
        let pem = try P256PrivateKey().pkcs8PEM
        let secretLine = try #require(pem.split(separator: "\n").dropFirst().first.map(String.init))
        try "not a key\n".write(toFile: directory + "/bad.p8", atomically: true, encoding: .utf8)
        try "not a certificate\n".write(toFile: directory + "/junk.pem", atomically: true, encoding: .utf8)
        let direct = ["PUSHGATE_IOS_PUSH": "apns", "PUSHGATE_APNS_KEY_ID": "KEY1234567", "PUSHGATE_APNS_TEAM_ID": "TEAM123456",
                      "PUSHGATE_APNS_BUNDLE_ID": "dev.pushgate.app"]
        let good = try await SettingsTableTests.host(["--check-config"], environment: direct.merging(
            ["PUSHGATE_APNS_P8": pem.replacingOccurrences(of: "\n", with: "\\n")]) { $1 })
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("APNs as key KEY1234567 of team TEAM123456") && !good.stdout.contains(secretLine))
        let cases: [(environment: [String: String], named: String)] = [
            (direct.merging(["PUSHGATE_APNS_KEY_P8_PATH": directory + "/bad.p8"]) { $1 }, "PUSHGATE_APNS"),
            (direct.merging(["PUSHGATE_APNS_P8": pem.replacingOccurrences(of: "\n", with: "\\n"),
                             "PUSHGATE_APNS_CA_FILE": directory + "/junk.pem"]) { $1 }, "PUSHGATE_APNS_CA_FILE"),
            (["PUSHGATE_IOS_PUSH": "sideways"], "PUSHGATE_IOS_PUSH"),
            (["PUSHGATE_ANDROID_PUSH": "fcm", "PUSHGATE_FCM_SERVICE_ACCOUNT_PATH": directory + "/bad.p8"],
             "PUSHGATE_FCM_SERVICE_ACCOUNT_PATH"),
            (["PUSHGATE_ANDROID_ALERT_PUSH": "direct"], "PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH"),
            (["PUSHGATE_LOG_LEVEL": "loud"], "PUSHGATE_LOG_LEVEL"),
            (["PUSHGATE_HOST_LISTEN": "nowhere"], "PUSHGATE_HOST_LISTEN"),
            (["PUSHGATE_FCM_ORIGIN": "ftp://fcm.example"], "PUSHGATE_FCM_ORIGIN"),
            (["PUSHGATE_FCM_TOKEN_URI": "not a url"], "PUSHGATE_FCM_TOKEN_URI"),
        ]
        for (environment, named) in cases {
            let outcome = try await SettingsTableTests.host(["--check-config"], environment: environment)
            #expect(outcome.status == 2, "\(environment): \(outcome.stdout)\(outcome.stderr)")
            #expect((outcome.stdout + outcome.stderr).contains(named), "\(environment): \(outcome.stdout)\(outcome.stderr)")
            #expect(!(outcome.stdout + outcome.stderr).contains(secretLine))
        }
    }
}
