extension FakeFCM {
    /// The `PUSHGATE_RELAY_*` settings that point a relay's Android lane at this fake: the
    /// service account file, the FCM origin and token URI, and the fake's certificate as CA.
    public func relayEnvironment(serviceAccountPath: String, caFile: String) -> [String: String] {
        [
            "PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH": serviceAccountPath, "PUSHGATE_RELAY_FCM_ORIGIN": origin,
            "PUSHGATE_RELAY_FCM_TOKEN_URI": tokenURI, "PUSHGATE_RELAY_FCM_CA_FILE": caFile,
        ]
    }
}
