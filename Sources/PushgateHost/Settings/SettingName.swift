/// One host setting: its environment variable and its key in `settings.json`.
public struct SettingName: Sendable, Hashable {
    /// The environment variable, e.g. `PUSHGATE_HOST_LISTEN`.
    public let environment: String
    /// The member of `settings.json`, e.g. `listen`.
    public let key: String
    /// Whether the value is a path that may start with `~`.
    public let isPath: Bool

    init(_ environment: String, _ key: String, isPath: Bool = false) {
        self.environment = environment
        self.key = key
        self.isPath = isPath
    }

    public static let listen = SettingName("PUSHGATE_HOST_LISTEN", "listen")
    public static let accessToken = SettingName("PUSHGATE_HOST_ACCESS_TOKEN", "accessToken")
    public static let relayURL = SettingName("PUSHGATE_PUSH_RELAY_URL", "pushRelayUrl")
    public static let iosPush = SettingName("PUSHGATE_IOS_PUSH", "iosPushMode")
    public static let apnsKeyId = SettingName("PUSHGATE_APNS_KEY_ID", "apnsKeyId")
    public static let apnsTeamId = SettingName("PUSHGATE_APNS_TEAM_ID", "apnsTeamId")
    public static let apnsP8 = SettingName("PUSHGATE_APNS_P8", "apnsP8")
    public static let apnsP8Path = SettingName("PUSHGATE_APNS_P8_PATH", "apnsP8Path", isPath: true)
    public static let apnsBundleId = SettingName("PUSHGATE_APNS_BUNDLE_ID", "apnsBundleId")
    public static let apnsHostProduction = SettingName("PUSHGATE_APNS_HOST_PRODUCTION", "apnsHostProduction")
    public static let apnsHostSandbox = SettingName("PUSHGATE_APNS_HOST_SANDBOX", "apnsHostSandbox")
    public static let apnsCAFile = SettingName("PUSHGATE_APNS_CA_FILE", "apnsCaFile", isPath: true)
    public static let logLevel = SettingName("PUSHGATE_LOG_LEVEL", "logLevel")
    public static let liveActivityRefreshInterval = SettingName("PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS",
                                                                "liveActivityRefreshIntervalMs")

    /// Every setting an environment variable can persist.
    public static let all: [SettingName] = [
        listen, accessToken, relayURL, iosPush, apnsKeyId, apnsTeamId, apnsP8, apnsP8Path, apnsBundleId,
        apnsHostProduction, apnsHostSandbox, apnsCAFile, logLevel, liveActivityRefreshInterval,
    ]
}
