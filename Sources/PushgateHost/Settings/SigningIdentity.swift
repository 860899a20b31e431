import PushgateCore

/// The host's P-256 signing key as kept in `settings.json`:
/// `relaySigningKey: {privateJwk, publicJwk}`.
///
/// - Important: protocol/host-api.md §1 — a present but unreadable key stops the host; it never makes a
///   new identity silently, because a new `serverId` orphans every binding on the relay.
public enum SigningIdentity {
    /// The settings member holding the key.
    public static let settingsKey = "relaySigningKey"

    /// The stored key, `nil` when the member is absent; throws when present but unusable.
    public static func read(from settings: JSONObject) throws -> P256PrivateKey? {
        guard let stored = settings[settingsKey] else { return nil }
        guard let privateJwk = stored["privateJwk"]?.objectValue,
              let key = try? P256PrivateKey(jwk: privateJwk) else {
            throw HostSettingsError("settings.json holds a relaySigningKey that cannot be read; restore it from a backup, "
                + "or run `pushgate-host identity rotate` to replace it (every phone must then be registered again)")
        }
        if let publicJwk = stored["publicJwk"]?.objectValue,
           (try? P256PublicKey(jwk: publicJwk))?.serverId != key.publicKey.serverId {
            throw HostSettingsError("settings.json relaySigningKey: publicJwk does not match privateJwk; restore it from a backup")
        }
        return key
    }

    /// The settings member for `key`.
    public static func value(for key: P256PrivateKey) throws -> JSONValue {
        .object(JSONObject([("privateJwk", .object(try key.privateJWK)), ("publicJwk", .object(key.publicKey.jwk))]))
    }
}
