import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The relay settings of `POST /v1/push`.
///
/// - Important: hapi-path.md §7 "Relay settings for this route" — `E2E_APNS_BUNDLE_ID`,
///   `E2E_APNS_ENV`, `FCM_SERVICE_ACCOUNT_PATH` (checked at start-up; unset → `android` is 501),
///   `FCM_PACKAGE_NAME`; plus `FCM_ORIGIN`, `FCM_TOKEN_URI` and `FCM_CA_FILE` to point the
///   Android lane at a fake FCM (Pushgate extension).
public struct HapiPushSettings: Sendable {
    /// The Android lane's FCM account and endpoints.
    public struct FCM: Sendable {
        public var account: ServiceAccount
        public var packageName: String
        public var origin: HTTP2Origin
        /// Where assertions are exchanged; `nil` uses the account's `token_uri`.
        public var tokenURI: String?
        public var extraCAFile: String?
    }

    /// `apns-topic` of the ios lane; `nil` uses the relay's `APNS_BUNDLE_ID`.
    public var apnsBundleId: String?
    public var apnsEnvironment: APNsEnvironment = .production
    /// How long APNs (`apns-expiration`) and FCM (`android.ttl`) keep trying an offline device,
    /// in seconds; 0 delivers now or never, as hapi does.
    public var ttlSeconds = APNsNotification.defaultTTLSeconds
    /// `nil`: no service account, so `platform:"android"` answers 501.
    public var fcm: FCM?

    public init() {}

    static let settingNames: Set<String> = [
        "E2E_APNS_BUNDLE_ID", "E2E_APNS_ENV", "E2E_APNS_TTL_SECONDS", "FCM_SERVICE_ACCOUNT_PATH", "FCM_PACKAGE_NAME", "FCM_ORIGIN",
        "FCM_TOKEN_URI", "FCM_CA_FILE",
    ]

    init(_ source: SettingsSource) throws(ConfigurationError) {
        apnsBundleId = source.value("E2E_APNS_BUNDLE_ID")
        if let environment = source.value("E2E_APNS_ENV") {
            guard let parsed = APNsEnvironment(rawValue: environment.lowercased()) else {
                throw ConfigurationError(setting: SettingsSource.displayName("E2E_APNS_ENV"), problem: "must be production or sandbox")
            }
            apnsEnvironment = parsed
        }
        ttlSeconds = try source.integer("E2E_APNS_TTL_SECONDS", default: ttlSeconds, in: 0...APNsNotification.maxTTLSeconds)
        guard let path = source.value("FCM_SERVICE_ACCOUNT_PATH") else {
            if let stray = ["FCM_PACKAGE_NAME", "FCM_ORIGIN", "FCM_TOKEN_URI", "FCM_CA_FILE"].first(where: { source.value($0) != nil }) {
                throw ConfigurationError(setting: SettingsSource.displayName(stray), problem: "needs FCM_SERVICE_ACCOUNT_PATH")
            }
            return
        }
        let account: ServiceAccount
        do {
            account = try ServiceAccountFile.load(path: path)
        } catch {
            throw ConfigurationError(setting: SettingsSource.displayName("FCM_SERVICE_ACCOUNT_PATH"), problem: error.problem)
        }
        let origin = try RelayConfiguration.origin(source, "FCM_ORIGIN", default: FCMConfiguration.googleOrigin)
        let tokenURI = source.value("FCM_TOKEN_URI")
        if let tokenURI, (try? HTTPSEndpoint(url: tokenURI)) == nil {
            throw ConfigurationError(setting: SettingsSource.displayName("FCM_TOKEN_URI"), problem: "must be an https URL such as https://127.0.0.1:4443/token")
        }
        let caFile = source.value("FCM_CA_FILE")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError(setting: SettingsSource.displayName("FCM_CA_FILE"), problem: "names a file that cannot be read")
        }
        fcm = FCM(account: account, packageName: source.value("FCM_PACKAGE_NAME") ?? FCMMessage.defaultRelayPackageName,
                  origin: origin, tokenURI: tokenURI, extraCAFile: caFile)
    }
}
