/// One row of the host's settings table: its environment variables, its key in `settings.json`,
/// its default and what it means.
///
/// - Important: ``table`` is the one list of host settings: ``HostSettings`` resolves them
///   from it, `--help` prints it and `--check-config` walks it. docs/host.md "Home and settings"
///   lists the same rows with the same keys, aliases and defaults (a test compares them). A new
///   setting is one more entry in ``table`` (and, when the code reads it, a name below); the
///   Pushgate variable wins over its hapi alias, and a legacy settings key is read only when the
///   key itself is absent, never written.
public struct SettingName: Sendable, Hashable {
    /// The environment variable, e.g. `PUSHGATE_HOST_LISTEN`.
    public let environment: String
    /// The member of `settings.json`, e.g. `listen`; `nil` for a setting the file cannot hold
    /// (`PUSHGATE_HOME`, where the file is).
    public let key: String?
    /// The default as the operator reads it.
    public let defaultValue: String
    /// What it does, in one line.
    public let meaning: String
    /// Whether the value is a path that may start with `~`.
    public let isPath: Bool
    /// Whether the value is a secret that `--check-config` never prints.
    public let isSecret: Bool
    /// Further environment variables read, in order, when `environment` is unset (hapi's names).
    public let aliases: [String]
    /// Older `settings.json` members read when `key` is absent.
    public let legacyKeys: [String]

    init(_ environment: String, _ key: String?, _ defaultValue: String, _ meaning: String, isPath: Bool = false,
         isSecret: Bool = false, aliases: [String] = [], legacyKeys: [String] = []) {
        self.environment = environment
        self.key = key
        self.defaultValue = defaultValue
        self.meaning = meaning
        self.isPath = isPath
        self.isSecret = isSecret
        self.aliases = aliases
        self.legacyKeys = legacyKeys
    }

    /// `environment` followed by the aliases.
    public var environmentNames: [String] { [environment] + aliases }

    /// How messages name the setting: `listen (PUSHGATE_HOST_LISTEN)`.
    public var label: String { key.map { "\($0) (\(environment))" } ?? environment }

    /// Every host setting, in the order of docs/host.md "Home and settings".
    public static let table: [SettingName] = [
        SettingName("PUSHGATE_HOME", nil, "~/.pushgate", "the home directory: settings.json and host.sqlite (mode 0700)", isPath: true),
        SettingName("PUSHGATE_HOST_LISTEN", "listen", "127.0.0.1:8789", "API address, host:port ([::1]:8789 for IPv6)"),
        SettingName("PUSHGATE_HOST_ACCESS_TOKEN", "accessToken", "32 random bytes, base64url, made on first start",
                    "bearer token of every /api/* call", isSecret: true),
        SettingName("PUSHGATE_PUSH_RELAY_URL", "pushRelayUrl", "unset (the encrypted path alone defaults to https://push.hapi.run)",
                    "the signed relay's base URL", aliases: ["HAPI_PUSH_RELAY_URL"], legacyKeys: ["iosPushRelayUrl"]),
        SettingName("PUSHGATE_IOS_PUSH", "iosPushMode", "relay", "iOS alerts: relay, apns (direct) or off", aliases: ["HAPI_IOS_PUSH"]),
        SettingName("PUSHGATE_APNS_KEY_ID", "apnsKeyId", "unset", "direct APNs: the .p8 key id", aliases: ["APNS_KEY_ID"]),
        SettingName("PUSHGATE_APNS_TEAM_ID", "apnsTeamId", "unset", "direct APNs: the team id", aliases: ["APNS_TEAM_ID"]),
        SettingName("PUSHGATE_APNS_P8", "apnsP8", "unset", "direct APNs: the .p8 key as PEM text (literal \\n allowed)", isSecret: true),
        SettingName("PUSHGATE_APNS_KEY_P8_PATH", "apnsKeyP8Path", "unset", "direct APNs: the .p8 key file (when PUSHGATE_APNS_P8 is unset)",
                    isPath: true, aliases: ["APNS_KEY_P8_PATH", "PUSHGATE_APNS_P8_PATH"], legacyKeys: ["apnsP8Path"]),
        SettingName("PUSHGATE_APNS_BUNDLE_ID", "apnsBundleId", "unset", "direct APNs: the app's bundle id (apns-topic)",
                    aliases: ["APNS_BUNDLE_ID"]),
        SettingName("PUSHGATE_APNS_ENV", "apnsEnv", "production", "direct APNs, encrypted path: production or sandbox", aliases: ["APNS_ENV"]),
        SettingName("PUSHGATE_APNS_HOST_PRODUCTION", "apnsHostProduction", "api.push.apple.com:443", "direct APNs: production origin"),
        SettingName("PUSHGATE_APNS_HOST_SANDBOX", "apnsHostSandbox", "api.sandbox.push.apple.com:443", "direct APNs: sandbox origin"),
        SettingName("PUSHGATE_APNS_CA_FILE", "apnsCaFile", "unset", "direct APNs: an extra trusted CA certificate (PEM)", isPath: true),
        SettingName("PUSHGATE_ANDROID_ALERT_PUSH", "androidAlertPushMode", "relay", "Android alert tokens: relay, direct or off"),
        SettingName("PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH", "androidAlertFcmServiceAccountPath", "unset",
                    "direct FCM: the service account file of the app's Firebase project", isPath: true),
        SettingName("PUSHGATE_ANDROID_ALERT_PACKAGE_NAME", "androidAlertPackageName", "unset",
                    "direct FCM: android.restricted_package_name of the messages"),
        SettingName("PUSHGATE_ANDROID_ALERT_CHANNEL_ID", "androidAlertChannelId", "default",
                    "direct FCM: android.notification.channel_id of the messages"),
        SettingName("PUSHGATE_ANDROID_ALERT_TIME_SENSITIVE_CHANNEL_ID", "androidAlertTimeSensitiveChannelId",
                    "PUSHGATE_ANDROID_ALERT_CHANNEL_ID", "direct FCM: the channel of time-sensitive alerts"),
        SettingName("PUSHGATE_ANDROID_PUSH", "androidPushMode", "auto", "hapi's encrypted Android lane: auto, relay, fcm or off",
                    aliases: ["HAPI_ANDROID_PUSH"]),
        SettingName("PUSHGATE_FCM_SERVICE_ACCOUNT_PATH", "fcmServiceAccountPath", "unset",
                    "hapi's encrypted Android lane: the service account file of direct FCM", isPath: true,
                    aliases: ["FCM_SERVICE_ACCOUNT_PATH"]),
        SettingName("PUSHGATE_FCM_ORIGIN", "fcmOrigin", "https://fcm.googleapis.com", "where direct FCM sends go"),
        SettingName("PUSHGATE_FCM_TOKEN_URI", "fcmTokenUri", "the account's token_uri", "where direct FCM's OAuth assertion is exchanged"),
        SettingName("PUSHGATE_FCM_CA_FILE", "fcmCaFile", "unset", "an extra trusted CA certificate (PEM) for direct FCM", isPath: true),
        SettingName("PUSHGATE_TIME_SENSITIVE", "timeSensitive", "on", "off sends time-sensitive alerts as active"),
        SettingName("PUSHGATE_DISMISS_MODE", "dismissMode", "banner", "banner, or background to add a background dismissal"),
        SettingName("PUSHGATE_APNS_TTL_SECONDS", "apnsTtlSeconds", "3600",
                    "direct modes: how long APNs and FCM keep trying an offline device; 0: now or never (0-2592000)"),
        SettingName("PUSHGATE_LOG_LEVEL", "logLevel", "info", "debug, info, warning or error"),
        SettingName("PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS", "liveActivityRefreshIntervalMs", "30000",
                    "Live Activity refresh tick; 0 turns it off"),
        SettingName("PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS", "liveActivityStartCooldownSeconds", "600",
                    "the least time between two starts of a Live Activity by push on one device (0-86400)"),
        SettingName("PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE", "liveActivityAttributesType", "PushgateActivityAttributes",
                    "aps.attributes-type of a start: the app's ActivityAttributes type"),
        SettingName("PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR", "liveActivityHighPriorityPerHour", "12",
                    "priority-10 Live Activity pushes per activity per rolling hour before updates go at 5 (0-3600)"),
        SettingName("PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS", "desktopVisibleTtlSeconds", "60",
                    "how long a desktop's report that it shows a session holds back its active and passive alerts (1-3600)"),
        SettingName("PUSHGATE_OUTBOX_DEADLINE_SECONDS", "outboxDeadlineSeconds", "3600",
                    "how long a push not yet accepted is tried again (0-604800)"),
        SettingName("PUSHGATE_OUTBOX_MAX", "outboxMax", "100000", "the most pushes the outbox holds (1-10000000)"),
        SettingName("PUSHGATE_METRICS_LISTEN", "metricsListen", "off", "where GET /metrics is served, host:port, or off"),
    ]

    /// The row of `environment`; a variable missing from the table is a bug in the code that asks.
    static func named(_ environment: String) -> SettingName {
        guard let row = table.first(where: { $0.environment == environment }) else {
            preconditionFailure("\(environment) is not in SettingName.table")
        }
        return row
    }

    // The rows the code reads, by name.
    public static let home = named("PUSHGATE_HOME")
    public static let listen = named("PUSHGATE_HOST_LISTEN")
    public static let accessToken = named("PUSHGATE_HOST_ACCESS_TOKEN")
    public static let relayURL = named("PUSHGATE_PUSH_RELAY_URL")
    public static let iosPush = named("PUSHGATE_IOS_PUSH")
    public static let androidPush = named("PUSHGATE_ANDROID_PUSH")
    public static let fcmServiceAccountPath = named("PUSHGATE_FCM_SERVICE_ACCOUNT_PATH")
    public static let androidAlertPush = named("PUSHGATE_ANDROID_ALERT_PUSH")
    public static let androidAlertServiceAccountPath = named("PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH")
    public static let androidAlertPackageName = named("PUSHGATE_ANDROID_ALERT_PACKAGE_NAME")
    public static let androidAlertChannelId = named("PUSHGATE_ANDROID_ALERT_CHANNEL_ID")
    public static let androidAlertTimeSensitiveChannelId = named("PUSHGATE_ANDROID_ALERT_TIME_SENSITIVE_CHANNEL_ID")
    public static let timeSensitive = named("PUSHGATE_TIME_SENSITIVE")
    public static let dismissMode = named("PUSHGATE_DISMISS_MODE")
    public static let fcmOrigin = named("PUSHGATE_FCM_ORIGIN")
    public static let fcmTokenURI = named("PUSHGATE_FCM_TOKEN_URI")
    public static let fcmCAFile = named("PUSHGATE_FCM_CA_FILE")
    public static let apnsKeyId = named("PUSHGATE_APNS_KEY_ID")
    public static let apnsTeamId = named("PUSHGATE_APNS_TEAM_ID")
    public static let apnsP8 = named("PUSHGATE_APNS_P8")
    public static let apnsP8Path = named("PUSHGATE_APNS_KEY_P8_PATH")
    public static let apnsBundleId = named("PUSHGATE_APNS_BUNDLE_ID")
    public static let apnsEnv = named("PUSHGATE_APNS_ENV")
    public static let apnsHostProduction = named("PUSHGATE_APNS_HOST_PRODUCTION")
    public static let apnsHostSandbox = named("PUSHGATE_APNS_HOST_SANDBOX")
    public static let apnsCAFile = named("PUSHGATE_APNS_CA_FILE")
    public static let apnsTTL = named("PUSHGATE_APNS_TTL_SECONDS")
    public static let logLevel = named("PUSHGATE_LOG_LEVEL")
    public static let liveActivityRefreshInterval = named("PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS")
    public static let liveActivityStartCooldown = named("PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS")
    public static let liveActivityAttributesType = named("PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE")
    public static let liveActivityHighPriorityPerHour = named("PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR")
    public static let desktopVisibleTTL = named("PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS")
    public static let outboxDeadline = named("PUSHGATE_OUTBOX_DEADLINE_SECONDS")
    public static let outboxMax = named("PUSHGATE_OUTBOX_MAX")
    public static let metricsListen = named("PUSHGATE_METRICS_LISTEN")
}
