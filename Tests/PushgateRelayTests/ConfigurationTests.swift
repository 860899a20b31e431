import Testing
@testable import PushgateRelay

@Suite struct RelayConfigurationTests {
    static let apnsEnvironment = [
        "PUSHGATE_RELAY_APNS_KEY_ID": "KEY1234567", "PUSHGATE_RELAY_APNS_TEAM_ID": "TEAM123456",
        "PUSHGATE_RELAY_APNS_BUNDLE_ID": "dev.pushgate.app",
        "PUSHGATE_RELAY_APNS_P8": "-----BEGIN PRIVATE KEY-----\\nSECRETMATERIAL\\n-----END PRIVATE KEY-----",
    ]

    @Test func defaultsMatchTheSpec() throws {
        let config = try RelayConfiguration(arguments: ["--dry-run"], environment: [:])
        #expect(config.host == "127.0.0.1" && config.port == 8788)
        #expect(config.timestampSkewMs == 300_000 && config.replayMs == 600_000)
        #expect(config.maxReplayEntries == 10_000 && config.maxTokens == 100_000 && config.maxInFlight == 64)
        #expect(config.registerLimitPerMinute == 60 && config.sendLimitPerMinute == 60 && config.serverSendLimitPerMinute == 120)
        #expect(config.databasePath == "./data/relay.sqlite" && config.apns == nil)
    }

    @Test func flagsWinOverEnvironmentAndBlankCountsAsUnset() throws {
        var env = Self.apnsEnvironment
        env["PUSHGATE_RELAY_PORT"] = "9000"
        env["PUSHGATE_RELAY_HOST"] = "  "
        let config = try RelayConfiguration(arguments: ["--port", "9100"], environment: env)
        #expect(config.port == 9100 && config.host == "127.0.0.1")
        #expect(config.apns?.p8PEM.contains("\nSECRETMATERIAL\n") == true, "literal \\n becomes a newline")
        #expect(config.apns?.productionOrigin == "https://api.push.apple.com")
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

    @Test func replayWindowMustCoverTwiceTheSkew() {
        #expect(throws: ConfigurationError.self) {
            try RelayConfiguration(arguments: ["--dry-run", "--replay-ms", "599999"], environment: [:])
        }
    }

    @Test func unknownFlagsStopStartUp() {
        #expect(throws: ConfigurationError.self) {
            try RelayConfiguration(arguments: ["--dry-run", "--prot", "1"], environment: [:])
        }
    }
}
