/// The fixed numbers of the gateway's storage rules.
///
/// - Important: protocol/gateway.md §3.1 (device cap), §5.1 (quotas), §5.3 and §8 (pruning).
public enum GatewayLimits {
    /// Registrations per host.
    public static let devicesPerHost = 64
    /// Admitted sends per host per rolling hour.
    public static let sendsPerHostPerHour = 60
    public static let hourMs: Int64 = 3_600_000
    /// Admitted sends per registration per rolling day.
    public static let sendsPerRegistrationPerDay = 200
    public static let dayMs: Int64 = 86_400_000
    /// Send-log rows older than this (25 h) are pruned.
    public static let sendLogRetentionMs: Int64 = 90_000_000
    /// Challenges outlive their expiry by this much before pruning, so a late proof reads as expired.
    public static let challengeGraceMs: Int64 = 30_000
    /// Rows `GET /v1/devices` returns at most.
    public static let deviceListLimit = 1_024
}
