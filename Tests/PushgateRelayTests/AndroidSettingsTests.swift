import Foundation
import PushgateCore
@testable import PushgateRelay
import PushgateTestSupport
import PushgateTesting
import Testing

/// The `ANDROID_*` settings of the signed routes' Android tokens (docs/relay.md "Settings",
/// "Android tokens"): the account is read at start-up, and nothing else may be set without it.
@Suite(.hangLimit(.minutes(1))) struct AndroidSettingsTests {
    private static let accountPath = "PUSHGATE_RELAY_ANDROID_FCM_SERVICE_ACCOUNT_PATH"

    private static func configuration(_ settings: [String: String], arguments: [String] = []) throws -> RelayConfiguration {
        try RelayConfiguration(arguments: arguments, environment: RelayConfigurationTests.apnsEnvironment.merging(settings) { $1 })
    }

    /// A stray setting would otherwise be ignored in silence while the operator believes Android is on.
    @Test func aSettingWithoutTheAccountStopsStartUpNamingIt() throws {
        for name in ["ANDROID_CHANNEL_ID", "ANDROID_TIME_SENSITIVE_CHANNEL_ID", "ANDROID_FCM_ORIGIN", "ANDROID_PACKAGE_NAME", "ANDROID_FCM_TOKEN_URI", "ANDROID_FCM_CA_FILE"] {
            let error = #expect(throws: ConfigurationError.self, "\(name)") {
                try Self.configuration(["PUSHGATE_RELAY_" + name: "https://127.0.0.1:4443"])
            }
            #expect(error?.setting.hasPrefix("PUSHGATE_RELAY_\(name) ") == true, "\(error?.description ?? "")")
            #expect(error?.problem.contains("ANDROID_FCM_SERVICE_ACCOUNT_PATH") == true, "\(name)")
        }
    }

    /// The error names the Android account, not hapi's `FCM_SERVICE_ACCOUNT_PATH`.
    @Test func anUnreadableAccountFileNamesTheAndroidSetting() throws {
        let directory = try TemporaryDirectory.create("android-settings").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Tests may run as root, which reads any mode: a directory and a missing file cannot be read.
        for path in [directory, directory + "/missing.json"] {
            let error = #expect(throws: ConfigurationError.self, "\(path)") {
                try Self.configuration([Self.accountPath: path])
            }
            #expect(error?.setting.hasPrefix(Self.accountPath + " ") == true, "\(error?.description ?? "")")
            #expect(error?.problem.contains("cannot be read") == true, "\(error?.description ?? "")")
        }
    }

    @Test func defaultsAndValues() throws {
        #expect(try Self.configuration([:]).android == nil, "no account, no Android")
        let path = try HapiPushConfigurationTests.temporaryFile(JSONValue.object(try HapiPushHarness.serviceAccountObject()).serialized())
        defer { try? FileManager.default.removeItem(atPath: path) }

        let defaults = try #require(try Self.configuration([Self.accountPath: path]).android)
        #expect(defaults.channelId == "default" && defaults.timeSensitiveChannelId == "default")
        #expect(defaults.fcm.packageName == nil, "no restricted_package_name unless set")
        #expect(defaults.fcm.account.projectId == "pushgate-test")
        #expect(defaults.fcm.origin.description == "https://fcm.googleapis.com" && defaults.fcm.tokenURI == nil)

        let set = try #require(try Self.configuration([Self.accountPath: path, "PUSHGATE_RELAY_ANDROID_PACKAGE_NAME": "dev.example.app"],
                                                      arguments: ["--android-channel-id", "agents"]).android)
        #expect(set.channelId == "agents" && set.fcm.packageName == "dev.example.app")
        #expect(set.timeSensitiveChannelId == "agents", "the normal channel unless set")
        let urgent = try #require(try Self.configuration([Self.accountPath: path],
                                                         arguments: ["--android-time-sensitive-channel-id", "agents-urgent"]).android)
        #expect(urgent.channelId == "default" && urgent.timeSensitiveChannelId == "agents-urgent")
        for name in ["ANDROID_CHANNEL_ID", "ANDROID_TIME_SENSITIVE_CHANNEL_ID"] {
            let error = #expect(throws: ConfigurationError.self, "\(name) over 256 bytes") {
                try Self.configuration([Self.accountPath: path, "PUSHGATE_RELAY_" + name: String(repeating: "c", count: 257)])
            }
            #expect(error?.setting.hasPrefix("PUSHGATE_RELAY_\(name) ") == true, "\(error?.description ?? "")")
        }
    }
}
