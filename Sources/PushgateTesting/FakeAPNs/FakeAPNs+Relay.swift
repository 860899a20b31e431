import PushgateCore

extension FakeAPNs {
    /// The `PUSHGATE_RELAY_*` settings that point a relay at this fake: both APNs origins, its
    /// certificate as the extra CA, and the provider key the fake was configured to trust.
    public func relayEnvironment(apnsKey: P256PrivateKey, keyId: String, teamId: String, bundleId: String,
                                 caFile: String, databasePath: String) throws -> [String: String] {
        try Self.relayEnvironment(origin: origin, apnsKey: apnsKey, keyId: keyId, teamId: teamId, bundleId: bundleId,
                                  caFile: caFile, databasePath: databasePath)
    }

    /// The same settings for a fake APNs at `origin` in another process (`pushgate-dev fake-apns`).
    public static func relayEnvironment(origin: String, apnsKey: P256PrivateKey, keyId: String, teamId: String,
                                        bundleId: String, caFile: String, databasePath: String) throws -> [String: String] {
        [
            "PUSHGATE_RELAY_PORT": "0", "PUSHGATE_RELAY_DATABASE_PATH": databasePath,
            "PUSHGATE_RELAY_APNS_KEY_ID": keyId, "PUSHGATE_RELAY_APNS_TEAM_ID": teamId,
            "PUSHGATE_RELAY_APNS_BUNDLE_ID": bundleId, "PUSHGATE_RELAY_APNS_P8": try apnsKey.pkcs8PEM,
            "PUSHGATE_RELAY_APNS_HOST_PRODUCTION": origin, "PUSHGATE_RELAY_APNS_HOST_SANDBOX": origin,
            "PUSHGATE_RELAY_APNS_CA_FILE": caFile,
            // Many test relays run at once: each takes a free metrics port, not the default 9788.
            "PUSHGATE_RELAY_METRICS_LISTEN": "127.0.0.1:0",
        ]
    }
}
