import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The relay settings of `POST /v1/push`.
///
/// - Important: protocol/hapi-push.md §7 "Relay settings for this route" — `E2E_APNS_BUNDLE_ID`,
///   `E2E_APNS_ENV`, `FCM_SERVICE_ACCOUNT_PATH` (checked at start-up; unset → `android` is 501),
///   `FCM_PACKAGE_NAME`; plus `FCM_ORIGIN`, `FCM_TOKEN_URI` and `FCM_CA_FILE` to point the
///   Android lane at a fake FCM (Pushgate extension).
public struct HapiPushSettings: Sendable {
    /// `apns-topic` of the ios lane; `nil` uses the relay's `APNS_BUNDLE_ID`.
    public var apnsBundleId: String?
    public var apnsEnvironment: APNsEnvironment = .production
    /// How long APNs (`apns-expiration`) and FCM (`android.ttl`) keep trying an offline device,
    /// in seconds; 0 delivers now or never, as hapi does.
    public var ttlSeconds = APNsNotification.defaultTTLSeconds
    /// The Android lane's account (its package name defaults to hapi's app); `nil`: no service
    /// account, so `platform:"android"` answers 501.
    public var fcm: FCMAccountSettings?

    public init() {}

    static let fcmNames = FCMAccountSettings.Names(serviceAccountPath: "FCM_SERVICE_ACCOUNT_PATH", packageName: "FCM_PACKAGE_NAME",
                                                   origin: "FCM_ORIGIN", tokenURI: "FCM_TOKEN_URI", caFile: "FCM_CA_FILE")

    init(_ source: SettingsSource) throws(ConfigurationError) {
        apnsBundleId = source.value("E2E_APNS_BUNDLE_ID")
        if let environment = source.value("E2E_APNS_ENV") {
            guard let parsed = APNsEnvironment(rawValue: environment.lowercased()) else {
                throw ConfigurationError(setting: SettingsSource.displayName("E2E_APNS_ENV"), problem: "must be production or sandbox")
            }
            apnsEnvironment = parsed
        }
        ttlSeconds = try source.integer("E2E_APNS_TTL_SECONDS", default: ttlSeconds, in: 0...APNsNotification.maxTTLSeconds)
        fcm = try FCMAccountSettings.load(source, Self.fcmNames, defaultPackageName: FCMMessage.defaultRelayPackageName)
    }
}
