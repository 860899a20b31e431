import Foundation
import PushgateCore
@testable import PushgateRelay
import PushgateTestSupport
import PushgateTesting
import Testing

/// `pushgate-relay --check-config`, run as the built binary: every setting validated, every
/// file named read, the plan printed without secrets, nothing created; exit 0, or 2 and why.
@Suite(.hangLimit(.minutes(1))) struct ConfigurationCheckTests {
    /// A directory of its own with a real `.p8` key, an FCM service account and a CA certificate.
    struct Files {
        let directory: String
        let key = P256PrivateKey()
        let keyPEM: String
        let serviceAccount: JSONObject

        init() throws {
            directory = try TemporaryDirectory.create("check").path
            serviceAccount = try HapiPushHarness.serviceAccountObject()
            keyPEM = try key.pkcs8PEM
            try keyPEM.write(toFile: path("AuthKey.p8"), atomically: true, encoding: .utf8)
            try JSONValue.object(serviceAccount).serialized().write(toFile: path("account.json"), atomically: true, encoding: .utf8)
            try SelfSignedCertificate.generate().certificatePEM.write(toFile: path("ca.pem"), atomically: true, encoding: .utf8)
            try "not a certificate\n".write(toFile: path("junk.pem"), atomically: true, encoding: .utf8)
        }

        func path(_ name: String) -> String { directory + "/" + name }

        /// Lines of secret material that no output may contain.
        var secrets: [String] {
            let keyLines = keyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
            let accountKey = serviceAccount["private_key"]?.stringValue ?? ""
            return keyLines + accountKey.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        }

        /// A relay with APNs, both FCM accounts, CA files and a database that does not exist yet.
        var environment: [String: String] {
            ["PUSHGATE_RELAY_APNS_KEY_ID": "KEY1234567", "PUSHGATE_RELAY_APNS_TEAM_ID": "TEAM123456",
             "PUSHGATE_RELAY_APNS_BUNDLE_ID": "dev.pushgate.app", "PUSHGATE_RELAY_APNS_P8_PATH": path("AuthKey.p8"),
             "PUSHGATE_RELAY_APNS_CA_FILE": path("ca.pem"), "PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH": path("account.json"),
             "PUSHGATE_RELAY_ANDROID_FCM_SERVICE_ACCOUNT_PATH": path("account.json"),
             "PUSHGATE_RELAY_ANDROID_FCM_CA_FILE": path("ca.pem"), "PUSHGATE_RELAY_DATABASE_PATH": path("data/relay.sqlite")]
        }
    }

    @Test func aGoodConfigurationPrintsThePlanWithoutSecretsAndCreatesNothing() async throws {
        let files = try Files()
        let outcome = try await SettingsTableTests.relay(["--check-config", "--port", "8799"], environment: files.environment)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("the configuration is valid"))
        #expect(outcome.stdout.contains("PUSHGATE_RELAY_PORT = 8799  [--port]"))
        #expect(outcome.stdout.contains("PUSHGATE_RELAY_APNS_KEY_ID = KEY1234567  [environment]"))
        #expect(outcome.stdout.contains("listen on 127.0.0.1:8799"))
        #expect(outcome.stdout.contains("APNs as key KEY1234567 of team TEAM123456"))
        #expect(outcome.stdout.contains("made on first start"))
        #expect(outcome.stdout.contains("FCM project \(files.serviceAccount["project_id"]?.stringValue ?? "?")"))
        for secret in files.secrets { #expect(!outcome.stdout.contains(secret) && !outcome.stderr.contains(secret)) }
        #expect(!FileManager.default.fileExists(atPath: files.path("data")), "the check made the database's directory")

        // An inline key and a database URL with a password: named, never shown.
        var inline = files.environment
        inline["PUSHGATE_RELAY_APNS_P8_PATH"] = nil
        inline["PUSHGATE_RELAY_APNS_P8"] = files.keyPEM.replacingOccurrences(of: "\n", with: "\\n")
        inline["PUSHGATE_RELAY_DATABASE_URL"] = "postgres://relay:hunter2-SECRET@127.0.0.1:1/pushgate"
        let hidden = try await SettingsTableTests.relay(["--check-config"], environment: inline)
        #expect(hidden.status == 0, "\(hidden.stderr)")
        #expect(hidden.stdout.contains("PUSHGATE_RELAY_APNS_P8 = (secret, not shown)"))
        #expect(hidden.stdout.contains("PostgreSQL") && !hidden.stdout.contains("hunter2-SECRET"))
        for secret in files.secrets { #expect(!hidden.stdout.contains(secret)) }
    }

    @Test func eachBadSettingOrFileExitsTwoNamingIt() async throws {
        let files = try Files()
        try "SQLite? no\n".write(toFile: files.path("not-a-database"), atomically: true, encoding: .utf8)
        let cases: [(change: [String: String], named: String)] = [
            (["PUSHGATE_RELAY_APNS_P8_PATH": files.path("ca.pem")], "PUSHGATE_RELAY_APNS_P8"),
            (["PUSHGATE_RELAY_APNS_P8_PATH": files.path("missing.p8")], "PUSHGATE_RELAY_APNS_P8_PATH"),
            (["PUSHGATE_RELAY_APNS_CA_FILE": files.path("junk.pem")], "PUSHGATE_RELAY_APNS_CA_FILE"),
            (["PUSHGATE_RELAY_ANDROID_FCM_CA_FILE": files.path("junk.pem")], "PUSHGATE_RELAY_ANDROID_FCM_CA_FILE"),
            (["PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH": files.path("AuthKey.p8")], "PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH"),
            (["PUSHGATE_RELAY_DATABASE_PATH": files.path("not-a-database")], "PUSHGATE_RELAY_DATABASE_PATH"),
            (["PUSHGATE_RELAY_PORT": "70000"], "PUSHGATE_RELAY_PORT"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_FCM_PROJECT_ID": "another-project"],
             "PUSHGATE_GATEWAY_FCM_PROJECT_ID"),
        ]
        for (change, named) in cases {
            let outcome = try await SettingsTableTests.relay(["--check-config"], environment: files.environment.merging(change) { $1 })
            #expect(outcome.status == 2, "\(change)")
            #expect(outcome.stderr.contains(named), "\(change): \(outcome.stderr)")
            #expect(outcome.stdout.isEmpty)
            for secret in files.secrets { #expect(!outcome.stderr.contains(secret)) }
        }
    }
}
