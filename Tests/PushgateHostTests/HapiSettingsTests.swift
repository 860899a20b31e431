import Foundation
import PushgateCore
@testable import PushgateHost
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 23–27: transport modes, settings precedence and persistence.
@Suite(.hangLimit(.minutes(1))) struct HapiSettingsTests {
    static func load(_ environment: [String: String], home: TemporaryHome = TemporaryHome(),
                     settings: JSONObject? = nil) throws -> HostSettings {
        if let settings {
            try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
            try Data(JSONValue.object(settings).serializedBytes()).write(to: URL(fileURLWithPath: home.settingsPath))
        }
        return try HostSettings.load(environment: home.environment(environment))
    }

    @Test func defaultsUseHapisPublicRelay() throws {
        let modes = HapiModes(settings: try Self.load([:]))
        guard case .relay(let url) = modes.ios else { Issue.record("iOS is \(modes.iosName)"); return }
        #expect(url == "https://push.hapi.run")
        guard case .relay(let androidURL) = modes.android else { Issue.record("Android is \(modes.androidName)"); return }
        #expect(androidURL == url)
        #expect(HapiRelayClient.pushURL(base: url) == "https://push.hapi.run/v1/push")
        let unknown = try Self.load(["PUSHGATE_IOS_PUSH": " Banana "])
        #expect(HapiModes(settings: unknown).iosName == "relay")
        #expect(unknown.diagnostics.contains { $0.contains("iosPushMode") })
        #expect(HapiModes(settings: try Self.load(["PUSHGATE_IOS_PUSH": " APNS ", "PUSHGATE_ANDROID_PUSH": " RELAY "])).androidName == "relay")
    }

    @Test func androidModes() throws {
        let home = TemporaryHome()
        let missing = HapiModes(settings: try Self.load(["PUSHGATE_FCM_SERVICE_ACCOUNT_PATH": home.path + "/nope.json"]))
        guard case .off(let reason) = missing.android else { Issue.record("auto with a missing file must be off"); return }
        #expect(reason.contains("fcmServiceAccountPath") && reason.contains("cannot be read"))
        let account = home.path + "-account.json"
        try Data(Self.serviceAccountJSON().utf8).write(to: URL(fileURLWithPath: account))
        #expect(HapiModes(settings: try Self.load(["PUSHGATE_FCM_SERVICE_ACCOUNT_PATH": account])).androidName == "fcm")
        #expect(HapiModes(settings: try Self.load(["PUSHGATE_ANDROID_PUSH": "relay", "FCM_SERVICE_ACCOUNT_PATH": account])).androidName == "relay")
        let fcmWithout = HapiModes(settings: try Self.load(["PUSHGATE_ANDROID_PUSH": "fcm"]))
        guard case .off(let why) = fcmWithout.android else { Issue.record("fcm without a path must be off"); return }
        #expect(why.contains("fcmServiceAccountPath"))
        let banana = HapiModes(settings: try Self.load(["HAPI_ANDROID_PUSH": "banana"]))
        guard case .off(let bananaReason) = banana.android else { Issue.record("banana must be off"); return }
        #expect(bananaReason.contains("androidPushMode"))
        let secret = "-----BEGIN PRIVATE KEY-----SECRET"
        let broken = home.path + "-broken.json"
        try Data(#"{"client_email":"a@b","project_id":"p","private_key":"\#(secret)"}"#.utf8).write(to: URL(fileURLWithPath: broken))
        let brokenModes = HapiModes(settings: try Self.load(["PUSHGATE_ANDROID_PUSH": "fcm", "PUSHGATE_FCM_SERVICE_ACCOUNT_PATH": broken]))
        guard case .off(let brokenReason) = brokenModes.android else { Issue.record("a broken account must be off"); return }
        #expect(!brokenReason.contains("SECRET"))
        #expect(HapiModes(settings: try Self.load(["PUSHGATE_ANDROID_PUSH": "off"])).androidName == "off")
    }

    @Test func apnsModeNeedsEveryCredential() throws {
        let home = TemporaryHome()
        let p8 = home.path + "-key.p8"
        try Data(try P256PrivateKey().pkcs8PEM.utf8).write(to: URL(fileURLWithPath: p8))
        let complete = ["PUSHGATE_IOS_PUSH": "apns", "APNS_KEY_P8_PATH": p8, "APNS_KEY_ID": "KEY1234567",
                        "APNS_TEAM_ID": "TEAM123456", "APNS_BUNDLE_ID": "run.hapi.app", "APNS_ENV": "sandbox"]
        let settings = try Self.load(complete)
        #expect(HapiModes(settings: settings).iosName == "apns")
        #expect(settings.hapi.apnsEnvironment == .sandbox && settings.directAPNs?.bundleId == "run.hapi.app")
        #expect(settings.directAPNs?.configuration.http2.requestTimeoutMilliseconds == 10_000)
        var withoutTeam = complete
        withoutTeam["APNS_TEAM_ID"] = "  "
        let off = HapiModes(settings: try Self.load(withoutTeam))
        guard case .off(let reason) = off.ios else { Issue.record("apns without a team id must be off"); return }
        #expect(reason.contains("apnsTeamId"))
        var badKey = complete
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: p8))
        badKey["APNS_ENV"] = "staging"
        let broken = try Self.load(badKey)
        #expect(broken.iosPushMode == .off && broken.diagnostics.contains { $0.contains("apnsKeyP8Path") && !$0.contains("not a key") })
        #expect(broken.hapi.apnsEnvironment == .production)
    }

    @Test func pushgateEnvBeatsHapiAliasBeatsSettings() throws {
        let home = TemporaryHome()
        let both = try Self.load(["PUSHGATE_IOS_PUSH": "off", "HAPI_IOS_PUSH": "apns"], home: home,
                                 settings: JSONObject([("iosPushMode", "relay")]))
        #expect(both.iosPushMode == .off)
        let alias = try Self.load(["PUSHGATE_IOS_PUSH": "  ", "HAPI_IOS_PUSH": "apns"], home: home)
        #expect(alias.diagnostics.contains { $0.contains("apnsKeyId") }, "apns was chosen (and is incomplete)")
        #expect(try Self.load([:], home: home).iosPushMode == .relay)
        #expect(try SettingsFile(path: home.settingsPath).read()["iosPushMode"] == "relay", "a present key is never overwritten")
    }

    @Test func envValuesPersistOnceWithMode0600AndTildeExpands() throws {
        let home = TemporaryHome()
        let user = home.path + "-user"
        try FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        try Data(try P256PrivateKey().pkcs8PEM.utf8).write(to: URL(fileURLWithPath: user + "/k.p8"))
        let first = try Self.load(["HOME": user, "APNS_KEY_P8_PATH": "~/k.p8", "HAPI_ANDROID_PUSH": "off", "HAPI_IOS_PUSH": "apns",
                                   "APNS_KEY_ID": "KEY1234567", "APNS_TEAM_ID": "TEAM123456", "APNS_BUNDLE_ID": "run.hapi.app",
                                   "PUSHGATE_PUSH_RELAY_URL": "http://relay.test//"], home: home)
        #expect(HapiModes(settings: first).iosName == "apns", "~/k.p8 was found in the home directory")
        let stored = try SettingsFile(path: home.settingsPath).read()
        #expect(stored["apnsKeyP8Path"] == "~/k.p8" && stored["androidPushMode"] == "off" && stored["iosPushMode"] == "apns")
        #expect(stored["pushRelayUrl"] == "http://relay.test//")
        #expect(try home.mode(of: home.settingsPath) == 0o600)
        #expect(first.hapi.androidPushMode == "off")
        #expect(HapiRelayClient.pushURL(base: try #require(first.hapi.relayURL)) == "http://relay.test/v1/push")
        let second = try Self.load(["HOME": user, "HAPI_ANDROID_PUSH": "relay"], home: home)
        #expect(second.hapi.androidPushMode == "relay", "env still wins at run time")
        #expect(HapiModes(settings: second).iosName == "apns", "the persisted values are used without the variables")
        #expect(try SettingsFile(path: home.settingsPath).read()["androidPushMode"] == "off")
        #expect(try home.mode(of: home.settingsPath) == 0o600)
    }

    @Test func legacyRelayKeyAndBadURLs() throws {
        let home = TemporaryHome()
        let legacy = try Self.load([:], home: home, settings: JSONObject([("iosPushRelayUrl", "https://old.example")]))
        #expect(legacy.hapi.relayURL == "https://old.example")
        #expect(try SettingsFile(path: home.settingsPath).read()["pushRelayUrl"] == nil, "the legacy key is never written")
        let nullKey = try Self.load([:], settings: JSONObject([("pushRelayUrl", .null), ("iosPushRelayUrl", "https://old.example")]))
        #expect(nullKey.hapi.relayURL == "https://push.hapi.run", "a present null key is unset, and hides the legacy key")
        let bad = try Self.load(["PUSHGATE_PUSH_RELAY_URL": "relay.example.com"])
        #expect(bad.hapi.relayURL == nil && bad.relayURL == nil)
        let modes = HapiModes(settings: bad)
        #expect(modes.iosName == "off" && modes.androidName == "off")
        #expect(bad.diagnostics.contains { $0.contains("pushRelayUrl") })
    }

    /// The service account of `rs256-oauth.json`.
    static func serviceAccountJSON() throws -> String {
        try #require(try JSONValue.parse(Fixtures.bytes("vectors/rs256-oauth.json"))["serviceAccount"]).serialized()
    }
}
