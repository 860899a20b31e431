/// The only forms in which device tokens and host identities may appear in logs.
///
/// - Important: protocol/signed-relay.md §9 — logs never carry a full token or serverId.
public enum Redact {
    /// The first 8 hex chars of SHA-256 over the token's UTF-8: enough to correlate log lines,
    /// useless for sending.
    public static func token(_ token: String) -> String {
        String(Hex.encode(SHA256.hash(Array(token.utf8))).prefix(8))
    }

    /// The first 4 characters of a serverId.
    public static func serverId(_ serverId: String) -> String {
        String(serverId.prefix(4))
    }
}
