import PushgateCore

/// Where the signed routes' Android tokens go (docs/relay.md "Android tokens"): the Firebase
/// project of the app that registers them — not hapi's, whose `FCM_SERVICE_ACCOUNT_PATH` belongs
/// to hapi's app — and the notification channel their alerts post to.
public struct AndroidAlertSettings: Sendable {
    public var fcm: FCMAccountSettings
    /// `android.notification.channel_id` (`ANDROID_CHANNEL_ID`, default `default`).
    public var channelId: String
    /// The channel of a time-sensitive alert (`ANDROID_TIME_SENSITIVE_CHANNEL_ID`, default
    /// `channelId`): a high-importance channel the app made (docs/relay.md "Attention").
    public var timeSensitiveChannelId: String

    static let fcmNames = FCMAccountSettings.Names(
        serviceAccountPath: "ANDROID_FCM_SERVICE_ACCOUNT_PATH", packageName: "ANDROID_PACKAGE_NAME",
        origin: "ANDROID_FCM_ORIGIN", tokenURI: "ANDROID_FCM_TOKEN_URI", caFile: "ANDROID_FCM_CA_FILE")
    static let channelSettings = ["ANDROID_CHANNEL_ID", "ANDROID_TIME_SENSITIVE_CHANNEL_ID"]
    static let defaultChannelId = "default"
    /// The setting without which an `android` register answers 501, as the relay's messages name it.
    static let accountSetting = SettingsSource.prefix + fcmNames.serviceAccountPath

    /// `nil` when `ANDROID_FCM_SERVICE_ACCOUNT_PATH` is not set: then an `android` register answers 501.
    static func load(_ source: SettingsSource) throws(ConfigurationError) -> Self? {
        guard let fcm = try FCMAccountSettings.load(source, fcmNames, defaultPackageName: nil) else {
            if let name = channelSettings.first(where: { source.value($0) != nil }) {
                throw ConfigurationError(setting: SettingsSource.displayName(name), problem: "needs \(fcmNames.serviceAccountPath)")
            }
            return nil
        }
        let channel = try channelId(source, "ANDROID_CHANNEL_ID") ?? defaultChannelId
        return Self(fcm: fcm, channelId: channel,
                    timeSensitiveChannelId: try channelId(source, "ANDROID_TIME_SENSITIVE_CHANNEL_ID") ?? channel)
    }

    /// A channel id setting: 1 to 256 bytes; `nil` when unset.
    private static func channelId(_ source: SettingsSource, _ name: String) throws(ConfigurationError) -> String? {
        guard let value = source.value(name) else { return nil }
        guard !value.isEmpty, value.utf8.count <= 256 else {
            throw ConfigurationError(setting: SettingsSource.displayName(name), problem: "must be 1 to 256 bytes")
        }
        return value
    }
}
