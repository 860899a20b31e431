import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The encrypted path's settings as resolved from env, settings.json and defaults.
///
/// - Important: protocol/hapi-push.md §6 (settings table) — `androidPushMode` default `auto`,
///   `pushRelayUrl` default `https://push.hapi.run`, `apnsEnv` `sandbox` or else production.
public struct HapiSettings: Sendable, Equatable {
    /// hapi's public relay, which holds the credentials of hapi's published apps.
    public static let defaultRelayURL = "https://push.hapi.run"
    public static let defaultAndroidPushMode = "auto"

    /// The Android mode as configured, trimmed and lower-cased (checked by ``HapiModes``).
    public var androidPushMode: String
    /// The relay base URL; nil when the configured value is not an absolute http(s) URL.
    public var relayURL: String?
    /// The FCM service-account file, when set.
    public var fcmServiceAccountPath: String?
    /// The APNs service of `apns` mode.
    public var apnsEnvironment: APNsEnvironment
    /// Where direct FCM sends go, `https://host[:port]`; nil → Google (a fake FCM in tests).
    public var fcmOrigin: String?
    /// Where the OAuth assertion is exchanged; nil → the account's `token_uri`.
    public var fcmTokenURI: String?
    /// An extra trusted CA for the FCM and OAuth endpoints (a local fake FCM).
    public var fcmCAFile: String?

    public init(androidPushMode: String = defaultAndroidPushMode, relayURL: String? = defaultRelayURL,
                fcmServiceAccountPath: String? = nil, apnsEnvironment: APNsEnvironment = .production,
                fcmOrigin: String? = nil, fcmTokenURI: String? = nil, fcmCAFile: String? = nil) {
        self.androidPushMode = androidPushMode
        self.relayURL = relayURL
        self.fcmServiceAccountPath = fcmServiceAccountPath
        self.apnsEnvironment = apnsEnvironment
        self.fcmOrigin = fcmOrigin
        self.fcmTokenURI = fcmTokenURI
        self.fcmCAFile = fcmCAFile
    }

    /// The host's deadline for each FCM OAuth exchange and send (docs/hapi.md "Transports and settings").
    static let fcmTimeoutMilliseconds: Int64 = 10_000

    /// An FCM client for `account` on these endpoints (Google's unless a test points them at a
    /// fake FCM): the hapi lane's and, in direct mode, the Android alert tokens' (docs/host.md).
    func fcmClient(account: ServiceAccount, clock: any WallClock, logger: Logger) throws -> FCMClient {
        let origin = try fcmOrigin.map { try HTTP2Origin(url: $0) } ?? FCMConfiguration.googleOrigin
        let configuration = FCMConfiguration(account: account, origin: origin, tokenURI: fcmTokenURI,
                                             extraCAFile: fcmCAFile, timeoutMilliseconds: Self.fcmTimeoutMilliseconds)
        return try FCMClient(configuration: configuration, clock: clock, logger: logger)
    }
}
