import PushgateCore
import PushgateProviders

/// How alerts leave the host for Android (FCM) alert tokens: through the signed relay, straight
/// to FCM with the operator's own service account, or not at all (`PUSHGATE_ANDROID_ALERT_PUSH`).
///
/// - Important: docs/host.md "Android alert tokens" — `relay` is the default. The name is not
///   `PUSHGATE_ANDROID_PUSH`: that one already selects hapi's encrypted Android lane.
public enum AndroidAlertPushMode: String, Sendable, CaseIterable {
    case relay
    case direct
    case off
}

/// The operator's own Firebase project for Android alert tokens, for `PUSHGATE_ANDROID_ALERT_PUSH=direct`:
/// an account apart from the hapi lane's (`PUSHGATE_FCM_SERVICE_ACCOUNT_PATH`), as the two are
/// different apps.
public struct DirectFCMAlertSettings: Sendable {
    /// The default `android.notification.channel_id`.
    public static let defaultChannelId = "default"

    public var account: ServiceAccount
    /// `android.notification.channel_id` (`PUSHGATE_ANDROID_ALERT_CHANNEL_ID`).
    public var channelId: String
    /// `android.restricted_package_name`, when set (`PUSHGATE_ANDROID_ALERT_PACKAGE_NAME`).
    public var packageName: String?
    /// The high-importance channel of time-sensitive alerts
    /// (`PUSHGATE_ANDROID_ALERT_TIME_SENSITIVE_CHANNEL_ID`); nil: ``channelId``.
    public var timeSensitiveChannelId: String?

    /// Reads the `PUSHGATE_ANDROID_ALERT_*` settings; throws naming the missing or unusable one,
    /// never the service account file's contents.
    static func resolve(_ value: (SettingName) -> String?) throws -> DirectFCMAlertSettings {
        let setting = SettingName.androidAlertServiceAccountPath
        guard let path = value(setting) else {
            throw HostSettingsError("\(setting.label) is required when androidAlertPushMode is direct")
        }
        do {
            return DirectFCMAlertSettings(account: try ServiceAccountFile.load(path: path),
                                          channelId: value(.androidAlertChannelId) ?? defaultChannelId,
                                          packageName: value(.androidAlertPackageName),
                                          timeSensitiveChannelId: value(.androidAlertTimeSensitiveChannelId))
        } catch {
            throw HostSettingsError("\(setting.label) \(error.problem)")
        }
    }
}
