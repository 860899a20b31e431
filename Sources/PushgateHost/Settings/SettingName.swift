/// One host setting: its environment variables and its key in `settings.json`.
///
/// - Important: hapi-path.md §6 (settings table) — the Pushgate variable wins over its hapi
///   alias; a legacy settings key is read only when the key itself is absent, never written.
public struct SettingName: Sendable, Hashable {
    /// The environment variable, e.g. `PUSHGATE_HOST_LISTEN`.
    public let environment: String
    /// The member of `settings.json`, e.g. `listen`.
    public let key: String
    /// Whether the value is a path that may start with `~`.
    public let isPath: Bool
    /// Further environment variables read, in order, when `environment` is unset (hapi's names).
    public let aliases: [String]
    /// Older `settings.json` members read when `key` is absent.
    public let legacyKeys: [String]

    init(_ environment: String, _ key: String, isPath: Bool = false, aliases: [String] = [], legacyKeys: [String] = []) {
        self.environment = environment
        self.key = key
        self.isPath = isPath
        self.aliases = aliases
        self.legacyKeys = legacyKeys
    }

    /// `environment` followed by the aliases.
    public var environmentNames: [String] { [environment] + aliases }

    public static let listen = SettingName("PUSHGATE_HOST_LISTEN", "listen")
    public static let accessToken = SettingName("PUSHGATE_HOST_ACCESS_TOKEN", "accessToken")
    public static let relayURL = SettingName("PUSHGATE_PUSH_RELAY_URL", "pushRelayUrl", aliases: ["HAPI_PUSH_RELAY_URL"],
                                             legacyKeys: ["iosPushRelayUrl"])
    public static let iosPush = SettingName("PUSHGATE_IOS_PUSH", "iosPushMode", aliases: ["HAPI_IOS_PUSH"])
    public static let androidPush = SettingName("PUSHGATE_ANDROID_PUSH", "androidPushMode", aliases: ["HAPI_ANDROID_PUSH"])
    public static let fcmServiceAccountPath = SettingName("PUSHGATE_FCM_SERVICE_ACCOUNT_PATH", "fcmServiceAccountPath", isPath: true,
                                                          aliases: ["FCM_SERVICE_ACCOUNT_PATH"])
    public static let androidAlertPush = SettingName("PUSHGATE_ANDROID_ALERT_PUSH", "androidAlertPushMode")
    public static let androidAlertServiceAccountPath = SettingName("PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH",
                                                                  "androidAlertFcmServiceAccountPath", isPath: true)
    public static let androidAlertPackageName = SettingName("PUSHGATE_ANDROID_ALERT_PACKAGE_NAME", "androidAlertPackageName")
    public static let androidAlertChannelId = SettingName("PUSHGATE_ANDROID_ALERT_CHANNEL_ID", "androidAlertChannelId")
    public static let androidAlertTimeSensitiveChannelId = SettingName("PUSHGATE_ANDROID_ALERT_TIME_SENSITIVE_CHANNEL_ID",
                                                                       "androidAlertTimeSensitiveChannelId")
    public static let timeSensitive = SettingName("PUSHGATE_TIME_SENSITIVE", "timeSensitive")
    public static let dismissMode = SettingName("PUSHGATE_DISMISS_MODE", "dismissMode")
    public static let fcmOrigin = SettingName("PUSHGATE_FCM_ORIGIN", "fcmOrigin")
    public static let fcmTokenURI = SettingName("PUSHGATE_FCM_TOKEN_URI", "fcmTokenUri")
    public static let fcmCAFile = SettingName("PUSHGATE_FCM_CA_FILE", "fcmCaFile", isPath: true)
    public static let apnsKeyId = SettingName("PUSHGATE_APNS_KEY_ID", "apnsKeyId", aliases: ["APNS_KEY_ID"])
    public static let apnsTeamId = SettingName("PUSHGATE_APNS_TEAM_ID", "apnsTeamId", aliases: ["APNS_TEAM_ID"])
    public static let apnsP8 = SettingName("PUSHGATE_APNS_P8", "apnsP8")
    public static let apnsP8Path = SettingName("PUSHGATE_APNS_KEY_P8_PATH", "apnsKeyP8Path", isPath: true,
                                               aliases: ["APNS_KEY_P8_PATH", "PUSHGATE_APNS_P8_PATH"], legacyKeys: ["apnsP8Path"])
    public static let apnsBundleId = SettingName("PUSHGATE_APNS_BUNDLE_ID", "apnsBundleId", aliases: ["APNS_BUNDLE_ID"])
    public static let apnsEnv = SettingName("PUSHGATE_APNS_ENV", "apnsEnv", aliases: ["APNS_ENV"])
    public static let apnsHostProduction = SettingName("PUSHGATE_APNS_HOST_PRODUCTION", "apnsHostProduction")
    public static let apnsHostSandbox = SettingName("PUSHGATE_APNS_HOST_SANDBOX", "apnsHostSandbox")
    public static let apnsCAFile = SettingName("PUSHGATE_APNS_CA_FILE", "apnsCaFile", isPath: true)
    public static let apnsTTL = SettingName("PUSHGATE_APNS_TTL_SECONDS", "apnsTtlSeconds")
    public static let logLevel = SettingName("PUSHGATE_LOG_LEVEL", "logLevel")
    public static let liveActivityRefreshInterval = SettingName("PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS",
                                                                "liveActivityRefreshIntervalMs")
    public static let liveActivityStartCooldown = SettingName("PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS",
                                                              "liveActivityStartCooldownSeconds")
    public static let liveActivityAttributesType = SettingName("PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE", "liveActivityAttributesType")
    public static let liveActivityHighPriorityPerHour = SettingName("PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR",
                                                                    "liveActivityHighPriorityPerHour")
    public static let desktopVisibleTTL = SettingName("PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS", "desktopVisibleTtlSeconds")
    public static let outboxDeadline = SettingName("PUSHGATE_OUTBOX_DEADLINE_SECONDS", "outboxDeadlineSeconds")
    public static let outboxMax = SettingName("PUSHGATE_OUTBOX_MAX", "outboxMax")
    public static let metricsListen = SettingName("PUSHGATE_METRICS_LISTEN", "metricsListen")

    /// Every setting an environment variable can persist.
    public static let all: [SettingName] = [
        listen, accessToken, relayURL, iosPush, androidPush, androidAlertPush, androidAlertServiceAccountPath, androidAlertPackageName,
        androidAlertChannelId, androidAlertTimeSensitiveChannelId, timeSensitive, dismissMode, fcmServiceAccountPath, fcmOrigin, fcmTokenURI, fcmCAFile, apnsKeyId,
        apnsTeamId, apnsP8, apnsP8Path, apnsBundleId, apnsEnv, apnsHostProduction, apnsHostSandbox, apnsCAFile, apnsTTL, logLevel,
        liveActivityRefreshInterval, liveActivityStartCooldown, liveActivityAttributesType, liveActivityHighPriorityPerHour,
        desktopVisibleTTL, outboxDeadline, outboxMax, metricsListen,
    ]
}
