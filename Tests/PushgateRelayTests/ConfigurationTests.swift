import Foundation
import PushgateCore
import PushgateHTTP
@testable import PushgateRelay
import PushgateStore
import PushgateTestSupport
import PushgateTesting
import Testing

@Suite(.hangLimit(.minutes(1))) struct RelayConfigurationTests {
    static let apnsEnvironment = [
        "PUSHGATE_RELAY_APNS_KEY_ID": "KEY1234567", "PUSHGATE_RELAY_APNS_TEAM_ID": "TEAM123456",
        "PUSHGATE_RELAY_APNS_BUNDLE_ID": "dev.pushgate.app",
        "PUSHGATE_RELAY_APNS_P8": "-----BEGIN PRIVATE KEY-----\\nSECRETMATERIAL\\n-----END PRIVATE KEY-----",
    ]

    @Test func defaultsMatchTheSpec() throws {
        let config = try RelayConfiguration(arguments: ["--dry-run"], environment: [:])
        #expect(config.host == "127.0.0.1" && config.port == 8788)
        #expect(config.timestampSkewMs == 300_000 && config.maxReplayKeys == 200_000 && config.maxInFlight == 64)
        #expect(config.bindings == BindingPolicy(maxTokens: 10_000_000, maxTokensPerHost: 2_000, protectMs: 86_400_000,
                                                 newBindingsPerDay: 4, ttlMs: 180 * 86_400_000))
        #expect(config.newTokensPerIPPerHour == 200 && config.testClockOffsetMs == 0 && config.warnings.isEmpty)
        #expect(config.registerLimitPerMinute == 60 && config.sendLimitPerMinute == 60 && config.serverSendLimitPerMinute == 120)
        #expect(config.databasePath == "./data/relay.sqlite" && config.apns == nil)
        #expect(config.requestDeadlineMs == 8_000 && config.hapi.ttlSeconds == 3_600)
        #expect(config.apnsTTLSeconds == 3_600, "also in dry-run mode")
    }

    @Test func expiryAndTheRequestDeadlineAreReadAndBounded() throws {
        let config = try RelayConfiguration(arguments: ["--apns-ttl-seconds", "0", "--e2e-apns-ttl-seconds", "60",
                                                        "--request-deadline-ms", "5000"], environment: Self.apnsEnvironment)
        #expect(config.apnsTTLSeconds == 0 && config.hapi.ttlSeconds == 60 && config.requestDeadlineMs == 5_000)
        for (name, value) in [("REQUEST_DEADLINE_MS", "99"), ("E2E_APNS_TTL_SECONDS", "-1"), ("APNS_TTL_SECONDS", "2592001")] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") {
                try RelayConfiguration(arguments: [], environment: Self.apnsEnvironment.merging(["PUSHGATE_RELAY_" + name: value]) { $1 })
            }
        }
    }

    @Test func retiredReplaySettingsAreIgnoredWithAWarning() throws {
        let config = try RelayConfiguration(arguments: ["--dry-run"],
                                            environment: ["PUSHGATE_RELAY_REPLAY_MS": "1", "PUSHGATE_RELAY_MAX_REPLAY_ENTRIES": "2"])
        #expect(config.warnings.count == 2)
        #expect(config.warnings.allSatisfy { $0.contains("is ignored") })
        #expect(config.maxReplayKeys == 200_000)
    }

    @Test func clientAddressSettingsAndTheirFallbacks() throws {
        let defaults = try RelayConfiguration(arguments: ["--dry-run"], environment: [:])
        #expect(defaults.clientAddresses == ClientAddressPolicy() && defaults.clientAddresses.ipv6PrefixBits == 64)
        #expect(defaults.maxConnectionsPerIP == 64 && defaults.rateLimitMaxKeys == nil)
        let set = try RelayConfiguration(arguments: ["--dry-run", "--trust-proxy-hops", "2", "--ipv6-prefix-bits", "48",
                                                     "--trusted-proxy-addresses", "10.0.0.0/8, 2001:db8::/32",
                                                     "--max-connections", "256", "--rate-limit-max-keys", "200"], environment: [:])
        #expect(set.clientAddresses.trustedProxyHops == 2 && set.clientAddresses.ipv6PrefixBits == 48)
        #expect(set.clientAddresses.trustedProxies?.map(\.description) == ["10.0.0.0/8", "2001:db8::/32"])
        #expect(set.maxConnectionsPerIP == 4 && set.rateLimitMaxKeys == 200)
        #expect(set.warnings.count == 1 && set.warnings[0].contains("tests only"))
        let legacy = try RelayConfiguration(arguments: ["--dry-run", "--trust-proxy"], environment: [:])
        #expect(legacy.clientAddresses.trustedProxyHops == 1)
        #expect(legacy.warnings.contains { $0.contains("TRUST_PROXY_HOPS") } && legacy.warnings.contains { $0.contains("any peer") })
        let gateway = try RelayConfiguration(arguments: ["--dry-run"], environment: [
            "PUSHGATE_GATEWAY_PUBLIC_URL": "http://127.0.0.1:8788", "PUSHGATE_GATEWAY_TRUSTED_PROXY_HOPS": "3"])
        #expect(gateway.clientAddresses.trustedProxyHops == 3, "the gateway's hops when TRUST_PROXY_HOPS is unset")
        for (name, value) in [("TRUST_PROXY_HOPS", "9"), ("IPV6_PREFIX_BITS", "31"), ("TRUSTED_PROXY_ADDRESSES", "10.0.0.0/33"),
                              ("TRUSTED_PROXY_ADDRESSES", ","), ("RATE_LIMIT_MAX_KEYS", "0")] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") {
                try RelayConfiguration(arguments: ["--dry-run"], environment: ["PUSHGATE_RELAY_" + name: value])
            }
        }
    }

    @Test func bindingCapsAreReadInTheirUnits() throws {
        let config = try RelayConfiguration(arguments: ["--dry-run", "--binding-ttl-days", "2", "--binding-protect-hours", "0"],
                                            environment: ["PUSHGATE_RELAY_MAX_TOKENS_PER_HOST": "5",
                                                          "PUSHGATE_RELAY_NEW_BINDINGS_PER_TOKEN_PER_DAY": "7",
                                                          "PUSHGATE_RELAY_NEW_TOKENS_PER_IP_PER_HOUR": "9"])
        #expect(config.bindings.ttlMs == 2 * 86_400_000 && config.bindings.protectMs == 0)
        #expect(config.bindings.maxTokensPerHost == 5 && config.bindings.newBindingsPerDay == 7 && config.newTokensPerIPPerHour == 9)
        #expect(throws: ConfigurationError.self) { try RelayConfiguration(arguments: ["--dry-run", "--binding-ttl-days", "0"], environment: [:]) }
    }

    @Test func flagsWinOverEnvironmentAndBlankCountsAsUnset() throws {
        var env = Self.apnsEnvironment
        env["PUSHGATE_RELAY_PORT"] = "9000"
        env["PUSHGATE_RELAY_HOST"] = "  "
        let config = try RelayConfiguration(arguments: ["--port", "9100"], environment: env)
        #expect(config.port == 9100 && config.host == "127.0.0.1")
        #expect(config.apns?.p8PEM.contains("\nSECRETMATERIAL\n") == true, "literal \\n becomes a newline")
        #expect(config.apns?.productionOrigin.description == "https://api.push.apple.com")
    }

    @Test func metricsListenDefaultsToLoopbackAndTakesAnAddressOrOff() throws {
        func listen(_ value: String?) throws(ConfigurationError) -> ListenAddress? {
            try RelayConfiguration(arguments: ["--dry-run"] + (value.map { ["--metrics-listen", $0] } ?? []), environment: [:]).metricsListen
        }
        #expect(try listen(nil) == ListenAddress(host: "127.0.0.1", port: 9788))
        #expect(try listen("off") == nil)
        #expect(try listen("0.0.0.0:0") == ListenAddress(host: "0.0.0.0", port: 0))
        #expect(try listen("[::1]:9100") == ListenAddress(host: "::1", port: 9100))
        for bad in ["localhost:9788", "127.0.0.1", "127.0.0.1:70000", ":9788"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try listen(bad) }
        }
    }

    @Test func invalidSettingsNameTheSettingAndNeverTheSecret() {
        var env = Self.apnsEnvironment
        env["PUSHGATE_RELAY_PORT"] = "70000"
        #expect(throws: ConfigurationError.self) { try RelayConfiguration(arguments: [], environment: env) }
        do {
            _ = try RelayConfiguration(arguments: [], environment: env)
        } catch {
            #expect(error.description.contains("PUSHGATE_RELAY_PORT"))
            #expect(!error.description.contains("SECRETMATERIAL"))
        }
        env["PUSHGATE_RELAY_PORT"] = nil
        env["PUSHGATE_RELAY_APNS_KEY_ID"] = nil
        do {
            _ = try RelayConfiguration(arguments: [], environment: env)
            Issue.record("a missing APNs key id must stop start-up")
        } catch {
            #expect(error.description.contains("APNS_KEY_ID") && !error.description.contains("SECRETMATERIAL"))
        }
    }

    @Test func unknownFlagsStopStartUp() {
        #expect(throws: ConfigurationError.self) {
            try RelayConfiguration(arguments: ["--dry-run", "--prot", "1"], environment: [:])
        }
    }
}

/// The `/v1/push` settings of protocol/hapi-push.md §7.
@Suite(.hangLimit(.minutes(1))) struct HapiPushConfigurationTests {
    static func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hapi-config-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func defaultsLeaveAndroidUnconfiguredAndIOSOnTheRelayBundleInProduction() throws {
        let config = try RelayConfiguration(arguments: [], environment: RelayConfigurationTests.apnsEnvironment)
        #expect(config.hapi.fcm == nil)
        #expect(config.hapi.apnsBundleId == nil)
        #expect(config.hapi.apnsEnvironment == .production)
    }

    @Test func settingsAreReadAndTheServiceAccountIsLoadedAtStartUp() throws {
        let account = try HapiPushHarness.serviceAccountObject()
        let path = try Self.temporaryFile(JSONValue.object(account).serialized())
        defer { try? FileManager.default.removeItem(atPath: path) }
        var env = RelayConfigurationTests.apnsEnvironment
        env["PUSHGATE_RELAY_E2E_APNS_BUNDLE_ID"] = "run.hapi.ios"
        env["PUSHGATE_RELAY_E2E_APNS_ENV"] = "Sandbox"
        env["PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH"] = path
        let config = try RelayConfiguration(arguments: ["--fcm-package-name", "dev.example.app"], environment: env)
        #expect(config.hapi.apnsBundleId == "run.hapi.ios")
        #expect(config.hapi.apnsEnvironment == .sandbox)
        #expect(config.hapi.fcm?.account.projectId == "pushgate-test")
        #expect(config.hapi.fcm?.packageName == "dev.example.app")
        #expect(config.hapi.fcm?.origin.description == "https://fcm.googleapis.com")
        #expect(config.hapi.fcm?.tokenURI == nil)
    }

    @Test func aBrokenServiceAccountStopsStartUpNamingTheSettingNotTheContents() throws {
        var broken = try HapiPushHarness.serviceAccountObject()
        broken["private_key"] = "-----BEGIN PRIVATE KEY-----\nSECRETKEYTEXT\n-----END PRIVATE KEY-----\n"
        let brokenPath = try Self.temporaryFile(JSONValue.object(broken).serialized())
        var noEmail = try HapiPushHarness.serviceAccountObject()
        noEmail["client_email"] = nil
        let noEmailPath = try Self.temporaryFile(JSONValue.object(noEmail).serialized())
        let notJSONPath = try Self.temporaryFile("SECRETKEYTEXT")
        defer { [brokenPath, noEmailPath, notJSONPath].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let cases: [(String, String)] = [
            (brokenPath, "private_key"), (noEmailPath, "client_email"), (notJSONPath, "not valid JSON"),
            ("/nonexistent/account.json", "cannot be read"),
        ]
        for (path, problem) in cases {
            var env = RelayConfigurationTests.apnsEnvironment
            env["PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH"] = path
            let error = #expect(throws: ConfigurationError.self) { try RelayConfiguration(arguments: [], environment: env) }
            #expect(error?.setting.contains("FCM_SERVICE_ACCOUNT_PATH") == true)
            #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
            #expect(error?.description.contains("SECRETKEYTEXT") == false)
        }
    }

    @Test func invalidRouteSettingsStopStartUp() throws {
        let bad: [[String: String]] = [
            ["PUSHGATE_RELAY_E2E_APNS_ENV": "staging"],
            ["PUSHGATE_RELAY_FCM_ORIGIN": "https://127.0.0.1:4443"],
            ["PUSHGATE_RELAY_FCM_PACKAGE_NAME": "dev.example"],
        ]
        for extra in bad {
            #expect(throws: ConfigurationError.self, "\(extra)") {
                try RelayConfiguration(arguments: [], environment: RelayConfigurationTests.apnsEnvironment.merging(extra) { $1 })
            }
        }
        let account = try Self.temporaryFile(JSONValue.object(try HapiPushHarness.serviceAccountObject()).serialized())
        defer { try? FileManager.default.removeItem(atPath: account) }
        for (name, value) in [("FCM_TOKEN_URI", "http://127.0.0.1/token"), ("FCM_ORIGIN", "ftp://x"), ("FCM_CA_FILE", "/nonexistent.pem")] {
            var env = RelayConfigurationTests.apnsEnvironment
            env["PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH"] = account
            env["PUSHGATE_RELAY_" + name] = value
            let error = #expect(throws: ConfigurationError.self) { try RelayConfiguration(arguments: [], environment: env) }
            #expect(error?.setting.contains(name) == true)
        }
    }

    @Test func theRelayProcessRefusesToStartWithABrokenServiceAccount() async throws {
        let path = try Self.temporaryFile(#"{"project_id":"p","client_email":"e@x","private_key":"SECRETKEYTEXT"}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, stderr) = try await onOwnThread {
            try RelayProcess(arguments: ["--dry-run", "--port", "0", "--database-path", ":memory:"],
                             environment: ["PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH": path]).exitStatus()
        }
        #expect(status == 2)
        #expect(stderr.contains("PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH"))
        #expect(!stderr.contains("SECRETKEYTEXT"))
    }
}
