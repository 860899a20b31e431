import PushgateCore

/// The settings of the Orca-compatible gateway routes, from `PUSHGATE_GATEWAY_*`.
///
/// - Important: protocol/gateway.md §10.1 — `PUBLIC_URL` enables the routes (a canonical origin,
///   §1); invalid values stop start-up with a message naming the setting. Pushgate adds
///   `PUSHGATE_GATEWAY_ENABLED` to switch the routes off (or to insist they are on).
public struct GatewayConfiguration: Sendable, Equatable {
    /// The environment prefix of every gateway setting.
    public static let prefix = "PUSHGATE_GATEWAY_"

    /// The origin hosts post to and challenges bind (`PUBLIC_URL`).
    public var publicURL: String
    /// The coalescing window per registration (`COALESCE_MS`, 0–60 000).
    public var coalesceMs: Int64 = 3_000
    /// `apns-topic` of gateway pushes (`APNS_TOPIC`; default the relay's bundle id).
    public var apnsTopic: String
    /// The Firebase project of Android sends (`FCM_PROJECT_ID`); unset → Android deliveries end as `error`.
    public var fcmProjectId: String?
    /// `android.notification.channel_id` (`ANDROID_CHANNEL_ID`).
    public var androidChannelId = "orca-desktop"
    /// Trusted proxies appending to `X-Forwarded-For` in front of the relay (`TRUSTED_PROXY_HOPS`, 0–8):
    /// the relay's `TRUST_PROXY_HOPS` when that is unset (``ClientAddressPolicy``).
    public var trustedProxyHops = 0
    /// New hosts one client IP may add per hour, refilling continuously (`NEW_HOSTS_PER_IP_PER_HOUR`).
    public var newHostsPerIPPerHour = 20
    /// Hosts that have not opened a session for this long are removed with their phones (`HOST_TTL_DAYS`).
    public var hostTTLMs: Int64 = 30 * 86_400_000
    /// Hosts the table holds at most; beyond it only known hosts open sessions (`MAX_HOSTS`).
    public var maxHosts = 100_000

    public init(publicURL: String, apnsTopic: String) {
        self.publicURL = publicURL
        self.apnsTopic = apnsTopic
    }

    /// The gateway's variables, from the relay's settings table.
    private static let names = Set(RelaySetting.table.map(\.environment).filter { $0.hasPrefix(prefix) })

    /// The gateway settings in `environment`, or `nil` when the routes are off: `ENABLED`
    /// defaults to on exactly when `PUBLIC_URL` is set. Blank values count as unset; an unknown
    /// `PUSHGATE_GATEWAY_*` name stops start-up so typos do not pass silently.
    public static func from(environment: [String: String], relayBundleId: String) throws(ConfigurationError) -> GatewayConfiguration? {
        func value(_ name: String) -> String? {
            assert(names.contains(prefix + name), "\(prefix + name) is not in RelaySetting.table")
            guard let raw = environment[prefix + name], !raw.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return raw
        }
        if let unknown = environment.keys.filter({ $0.hasPrefix(prefix) && !names.contains($0) }).min() {
            throw ConfigurationError(setting: unknown, problem: "is not a gateway setting (see docs/gateway.md)")
        }
        let enabled: Bool
        switch value("ENABLED")?.lowercased() {
        case nil: enabled = value("PUBLIC_URL") != nil
        case "1", "true", "yes", "on": enabled = true
        case "0", "false", "no", "off": enabled = false
        default: throw ConfigurationError(setting: prefix + "ENABLED", problem: "must be true or false")
        }
        guard enabled else { return nil }
        guard let url = value("PUBLIC_URL") else {
            throw ConfigurationError(setting: prefix + "PUBLIC_URL", problem: "is required when the gateway is enabled (e.g. https://push.example.org)")
        }
        if let problem = GatewayOrigin.problem(with: url) {
            throw ConfigurationError(setting: prefix + "PUBLIC_URL", problem: problem)
        }
        var configuration = GatewayConfiguration(publicURL: url, apnsTopic: value("APNS_TOPIC") ?? relayBundleId)
        guard configuration.apnsTopic.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ConfigurationError(setting: prefix + "APNS_TOPIC", problem: "must be a bundle id (printable ASCII, no spaces)")
        }
        configuration.coalesceMs = Int64(try integer(value("COALESCE_MS"), "COALESCE_MS", default: 3_000, in: 0...60_000))
        configuration.trustedProxyHops = try integer(value("TRUSTED_PROXY_HOPS"), "TRUSTED_PROXY_HOPS", default: 0, in: 0...8)
        configuration.newHostsPerIPPerHour = try integer(value("NEW_HOSTS_PER_IP_PER_HOUR"), "NEW_HOSTS_PER_IP_PER_HOUR",
                                                         default: 20, in: 1...1_000_000)
        configuration.hostTTLMs = Int64(try integer(value("HOST_TTL_DAYS"), "HOST_TTL_DAYS", default: 30, in: 1...3_650)) * 86_400_000
        configuration.maxHosts = try integer(value("MAX_HOSTS"), "MAX_HOSTS", default: 100_000, in: 1...100_000_000)
        configuration.fcmProjectId = value("FCM_PROJECT_ID")
        if let project = configuration.fcmProjectId,
           !project.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }) {
            throw ConfigurationError(setting: prefix + "FCM_PROJECT_ID", problem: "must be a Firebase project id (lowercase letters, digits, -)")
        }
        configuration.androidChannelId = value("ANDROID_CHANNEL_ID") ?? configuration.androidChannelId
        return configuration
    }

    private static func integer(_ raw: String?, _ name: String, default defaultValue: Int,
                                in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let raw else { return defaultValue }
        guard let number = Int(raw), range.contains(number) else {
            throw ConfigurationError(setting: prefix + name, problem: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
