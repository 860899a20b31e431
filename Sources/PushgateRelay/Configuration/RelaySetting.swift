/// One row of the relay's settings table: the setting's name in code, its environment variable,
/// its flag, its default and what it means.
///
/// - Important: ``table`` is the one list of relay settings: flags and the environment are
///   parsed from it (``SettingsSource``), `--help` prints it and `--check-config` walks it.
///   docs/relay.md "Settings" lists the same rows with the same flags and defaults (a test
///   compares them). A new setting is one more entry here and one more row there.
public struct RelaySetting: Sendable {
    /// How the code names the setting: `PORT` for `PUSHGATE_RELAY_PORT`, the whole variable for
    /// one that is not `PUSHGATE_RELAY_*` (`PUSHGATE_LOG_LEVEL`, `PUSHGATE_GATEWAY_*`).
    public let name: String
    /// The environment variable.
    public let environment: String
    /// The flag, `--port`; `nil` when the setting is an environment variable only.
    public let flag: String?
    /// Whether the flag may stand alone (`--dry-run` = true).
    public let isSwitch: Bool
    /// The default as the operator reads it.
    public let defaultValue: String
    /// What it does, in one line.
    public let meaning: String
    /// Whether the value is a secret that `--check-config` never prints.
    public let isSecret: Bool

    /// A `PUSHGATE_RELAY_<name>` setting, by default also the flag `--<name>` in kebab case.
    private static func relay(_ name: String, _ defaultValue: String, _ meaning: String, hasFlag: Bool = true,
                              isSwitch: Bool = false, isSecret: Bool = false) -> RelaySetting {
        RelaySetting(name: name, environment: SettingsSource.prefix + name,
                     flag: hasFlag ? "--" + name.lowercased().replacingOccurrences(of: "_", with: "-") : nil,
                     isSwitch: isSwitch, defaultValue: defaultValue, meaning: meaning, isSecret: isSecret)
    }

    /// A setting read from the environment only, named by its whole variable.
    private static func environmentOnly(_ variable: String, _ defaultValue: String, _ meaning: String) -> RelaySetting {
        RelaySetting(name: variable, environment: variable, flag: nil, isSwitch: false, defaultValue: defaultValue,
                     meaning: meaning, isSecret: false)
    }

    /// Every relay setting, in the order of docs/relay.md "Settings".
    public static let table: [RelaySetting] = [
        relay("HOST", "127.0.0.1", "listen address"),
        relay("PORT", "8788", "listen port (0: any free port, printed at start)"),
        relay("TRUST_PROXY_HOPS", "0", "proxies in front that append to X-Forwarded-For (0-8); unset: the gateway's hops when above 0"),
        relay("TRUSTED_PROXY_ADDRESSES", "unset (any peer)",
              "comma-separated IP networks whose X-Forwarded-For is read; exempt from MAX_CONNECTIONS_PER_IP"),
        relay("IPV6_PREFIX_BITS", "64", "leading bits of an IPv6 address that make one client (32-128)"),
        relay("TRUST_PROXY", "false", "retired: true reads as TRUST_PROXY_HOPS=1, with a warning", isSwitch: true),
        relay("DATABASE_PATH", "./data/relay.sqlite", "SQLite binding store; the replay journal is <DATABASE_PATH>-replay"),
        relay("DATABASE_URL", "unset", "a postgres:// URL: bindings, replay keys and gateway tables go to PostgreSQL "
              + "(a URL with a password: environment only)", isSecret: true),
        relay("TIMESTAMP_SKEW_MS", "300000", "accepted distance between a request's ts and now (1000-86400000)"),
        relay("REPLAY_MS", "unset", "retired: ignored, with a warning"),
        relay("MAX_REPLAY_ENTRIES", "unset", "retired: ignored, with a warning"),
        relay("MAX_REPLAY_KEYS", "200000", "live replay keys; at the ceiling the client holding the most is refused (1-50000000)"),
        relay("REGISTER_LIMIT_PER_MINUTE", "60", "register and unregister requests per client IP per rolling minute"),
        relay("SEND_LIMIT_PER_MINUTE", "60", "send, live-activity and background requests per client IP per rolling minute"),
        relay("SERVER_SEND_LIMIT_PER_MINUTE", "120", "send, live-activity and background requests per serverId per rolling minute"),
        relay("MAX_TOKENS", "10000000", "distinct tokens the store may hold (1-1000000000)"),
        relay("MAX_TOKENS_PER_HOST", "2000", "tokens one serverId may hold (1-10000000)"),
        relay("NEW_TOKENS_PER_IP_PER_HOUR", "200", "tokens new to the relay that one client IP may add per hour (1-10000000)"),
        relay("BINDING_TTL_DAYS", "180", "a binding not refreshed for this long stops delivering and is swept (1-3650)"),
        relay("BINDING_PROTECT_HOURS", "24", "a binding refreshed within this long is never evicted (0-8760)"),
        relay("NEW_BINDINGS_PER_TOKEN_PER_DAY", "4", "new serverIds that may join a token other hosts hold, per 24 h (1-1024)"),
        relay("TEST_CLOCK_OFFSET_MS", "0", "tests only: added to the signed routes' clock"),
        relay("RATE_LIMIT_MAX_KEYS", "unset", "tests only: keys every rate limiter tracks (1-1000000)"),
        relay("MAX_IN_FLIGHT", "64", "concurrent provider requests, APNs and FCM (1-10000)"),
        relay("REQUEST_DEADLINE_MS", "8000", "how long the handling of one request may take (100-60000)"),
        relay("MAX_CONNECTIONS", "4096", "open HTTP connections in all (1-1000000)"),
        relay("MAX_CONNECTIONS_PER_IP", "MAX_CONNECTIONS / 64 (64)", "open HTTP connections from one client IP (1-1000000)"),
        relay("METRICS_LISTEN", "127.0.0.1:9788", "where GET /metrics is served, IP:PORT, or off"),
        relay("APNS_KEY_ID", "required unless --dry-run", "APNs token-auth key id"),
        relay("APNS_TEAM_ID", "required unless --dry-run", "APNs team id"),
        relay("APNS_BUNDLE_ID", "required unless --dry-run", "the app's bundle id: apns-topic of alerts"),
        relay("APNS_P8", "this or APNS_P8_PATH unless --dry-run", "the .p8 key as PEM text (literal \\n allowed); never a flag",
              hasFlag: false, isSecret: true),
        relay("APNS_P8_PATH", "this or APNS_P8 unless --dry-run", "the .p8 key file"),
        relay("APNS_HOST_PRODUCTION", "https://api.push.apple.com", "APNs production origin"),
        relay("APNS_HOST_SANDBOX", "https://api.sandbox.push.apple.com", "APNs sandbox origin"),
        relay("APNS_CA_FILE", "unset", "an extra trusted CA certificate (PEM), e.g. the fake APNs's"),
        relay("APNS_TTL_SECONDS", "3600", "how long APNs keeps trying an offline device; 0: now or never (0-2592000)"),
        relay("DRY_RUN", "off", "accept deliveries without Apple credentials", isSwitch: true),
        relay("DRY_RUN_LOG", "unset", "append each dry-run delivery as a JSON line to this file"),
        environmentOnly("PUSHGATE_LOG_LEVEL", "info", "debug, info, warning or error"),
        relay("E2E_APNS_BUNDLE_ID", "APNS_BUNDLE_ID", "apns-topic of POST /v1/push for iOS"),
        relay("E2E_APNS_ENV", "production", "production or sandbox for POST /v1/push"),
        relay("E2E_APNS_TTL_SECONDS", "3600", "how long APNs and FCM keep trying an offline device for POST /v1/push (0-2592000)"),
        relay("FCM_SERVICE_ACCOUNT_PATH", "unset", "service account file of POST /v1/push's Android lane; unset: android answers 501"),
        relay("FCM_PACKAGE_NAME", "run.hapi.companion", "restricted_package_name of the Android lane's messages"),
        relay("FCM_ORIGIN", "https://fcm.googleapis.com", "where the Android lane's FCM sends go"),
        relay("FCM_TOKEN_URI", "the account's token_uri", "where the Android lane's OAuth assertion is exchanged"),
        relay("FCM_CA_FILE", "unset", "an extra trusted CA certificate (PEM) for FCM"),
        relay("ANDROID_FCM_SERVICE_ACCOUNT_PATH", "unset",
              "service account file of the app whose Android tokens the signed routes take; unset: android register answers 501"),
        relay("ANDROID_CHANNEL_ID", "default", "android.notification.channel_id of those alerts (1-256 bytes)"),
        relay("ANDROID_TIME_SENSITIVE_CHANNEL_ID", "ANDROID_CHANNEL_ID", "the channel of time-sensitive alerts (1-256 bytes)"),
        relay("ANDROID_PACKAGE_NAME", "unset", "restricted_package_name of those alerts"),
        relay("ANDROID_FCM_ORIGIN", "https://fcm.googleapis.com", "where those alerts' FCM sends go"),
        relay("ANDROID_FCM_TOKEN_URI", "the account's token_uri", "where that account's OAuth assertion is exchanged"),
        relay("ANDROID_FCM_CA_FILE", "unset", "an extra trusted CA certificate (PEM) for that account's FCM"),
        environmentOnly("PUSHGATE_GATEWAY_PUBLIC_URL", "unset", "turns on the Orca-compatible gateway: the origin hosts use"),
        environmentOnly("PUSHGATE_GATEWAY_ENABLED", "on iff PUSHGATE_GATEWAY_PUBLIC_URL is set", "false keeps the gateway off"),
        environmentOnly("PUSHGATE_GATEWAY_COALESCE_MS", "3000", "the gateway's coalescing window per registration (0-60000)"),
        environmentOnly("PUSHGATE_GATEWAY_NEW_HOSTS_PER_IP_PER_HOUR", "20", "gateway hosts one client IP may add per hour (1-1000000)"),
        environmentOnly("PUSHGATE_GATEWAY_HOST_TTL_DAYS", "30", "a gateway host without a session for this long is removed (1-3650)"),
        environmentOnly("PUSHGATE_GATEWAY_MAX_HOSTS", "100000", "gateway hosts stored at most (1-100000000)"),
        environmentOnly("PUSHGATE_GATEWAY_APNS_TOPIC", "APNS_BUNDLE_ID", "apns-topic of gateway pushes"),
        environmentOnly("PUSHGATE_GATEWAY_FCM_PROJECT_ID", "unset", "Firebase project of gateway Android pushes (FCM_SERVICE_ACCOUNT_PATH's)"),
        environmentOnly("PUSHGATE_GATEWAY_ANDROID_CHANNEL_ID", "orca-desktop", "android.notification.channel_id of gateway pushes"),
        environmentOnly("PUSHGATE_GATEWAY_TRUSTED_PROXY_HOPS", "0", "proxies in front, read as TRUST_PROXY_HOPS when that is unset (0-8)"),
    ]

    /// The row of `name`; a name missing from the table is a bug in the code that asks.
    static func named(_ name: String) -> RelaySetting {
        guard let row = rowsByName[name] else { preconditionFailure("\(name) is not in RelaySetting.table") }
        return row
    }

    private static let rowsByName = Dictionary(uniqueKeysWithValues: table.map { ($0.name, $0) })

    /// How messages name the setting: its variable, and its flag when it has one.
    var displayName: String { flag.map { "\(environment) (\($0))" } ?? environment }
}
