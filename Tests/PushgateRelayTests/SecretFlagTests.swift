import Testing
@testable import PushgateRelay

/// Secrets never on the command line, which every local user reads in `ps` (docs/security.md).
@Suite struct SecretFlagTests {
    static let apnsIdentity = [
        "PUSHGATE_RELAY_APNS_KEY_ID": "KEY1234567", "PUSHGATE_RELAY_APNS_TEAM_ID": "TEAM123456",
        "PUSHGATE_RELAY_APNS_BUNDLE_ID": "dev.pushgate.app",
    ]
    static let pem = "-----BEGIN PRIVATE KEY-----\\nSECRETMATERIAL\\n-----END PRIVATE KEY-----"

    @Test func anAPNsKeyGivenAsAFlagIsRefusedNamingItsSafeForms() throws {
        for arguments in [["--apns-p8", Self.pem], ["--apns-p8=" + Self.pem], ["--dry-run", "--apns-p8", Self.pem]] {
            let error = #expect(throws: ConfigurationError.self) {
                try RelayConfiguration(arguments: arguments, environment: Self.apnsIdentity)
            }
            #expect(error?.setting == "--apns-p8")
            #expect(error?.problem.contains("PUSHGATE_RELAY_APNS_P8") == true && error?.problem.contains("--apns-p8-path") == true)
            #expect(error?.description.contains("SECRETMATERIAL") == false)
        }
        let fromEnvironment = try RelayConfiguration(arguments: [], environment: Self.apnsIdentity.merging(
            ["PUSHGATE_RELAY_APNS_P8": Self.pem]) { $1 })
        #expect(fromEnvironment.apns?.p8PEM.contains("SECRETMATERIAL") == true)
    }

    @Test func aDatabaseURLWithAPasswordIsRefusedAsAFlagAndAcceptedFromTheEnvironment() throws {
        let secret = "hunter2-SECRET"
        for url in ["postgres://relay:\(secret)@db:5432/pushgate", "postgres://relay@db/pushgate?password=\(secret)"] {
            let error = #expect(throws: ConfigurationError.self) {
                try RelayConfiguration(arguments: ["--dry-run", "--database-url", url], environment: [:])
            }
            #expect(error?.setting == "--database-url")
            #expect(error?.problem.contains("PUSHGATE_RELAY_DATABASE_URL") == true)
            #expect(error?.description.contains(secret) == false)
            let fromEnvironment = try RelayConfiguration(arguments: ["--dry-run"], environment: ["PUSHGATE_RELAY_DATABASE_URL": url])
            #expect(fromEnvironment.databaseURL != nil)
        }
        let withoutPassword = try RelayConfiguration(arguments: ["--dry-run", "--database-url", "postgres://relay@db/pushgate"],
                                                     environment: [:])
        #expect(withoutPassword.databaseURL?.description == "postgres://relay@db/pushgate")
    }
}
