import PushgateCore
import PushgateProviders

/// Which transport each platform uses on the encrypted path, and why a platform is off.
///
/// - Important: protocol/hapi-push.md §6 (modes) — iOS `relay | apns | off`; Android `auto` (direct
///   FCM when `fcmServiceAccountPath` is set, else relay), `relay`, `fcm`, `off`, anything
///   else off. Direct FCM needs a loadable service account or Android is off: it never falls
///   back to the relay. A relay URL that is not http(s) turns the relay transports off.
public struct HapiModes: Sendable {
    /// The iOS transport.
    public enum IOS: Sendable {
        case relay(url: String)
        case apns
        case off(reason: String)
    }

    /// The Android transport.
    public enum Android: Sendable {
        case relay(url: String)
        case fcm(ServiceAccount)
        case off(reason: String)
    }

    public let ios: IOS
    public let android: Android
    /// Settings of the encrypted path that could not be used (an unknown Android mode, a
    /// service account that does not load); `--check-config` fails on them.
    public let problems: [String]

    /// Resolves the modes from the host's settings.
    public init(settings: HostSettings) {
        let relayOff = "pushRelayUrl (PUSHGATE_PUSH_RELAY_URL) is not an absolute http or https URL"
        switch settings.iosPushMode {
        case .relay: ios = settings.hapi.relayURL.map { .relay(url: $0) } ?? .off(reason: relayOff)
        case .apns: ios = settings.directAPNs == nil ? .off(reason: "the direct APNs settings are incomplete") : .apns
        case .off: ios = .off(reason: settings.diagnostics.first { $0.hasPrefix("iOS push is off") } ?? "iosPushMode is off")
        }
        let path = settings.hapi.fcmServiceAccountPath
        var problems: [String] = []
        switch settings.hapi.androidPushMode {
        case "auto" where path != nil, "fcm":
            android = Self.loadAccount(path)
            if case .off(let reason) = android { problems.append("Android push (encrypted path) is off: " + reason) }
        case "auto", "relay": android = settings.hapi.relayURL.map { .relay(url: $0) } ?? .off(reason: relayOff)
        case "off": android = .off(reason: "androidPushMode is off")
        default:
            android = .off(reason: "androidPushMode (PUSHGATE_ANDROID_PUSH) is not auto, relay, fcm or off")
            problems.append("androidPushMode (PUSHGATE_ANDROID_PUSH) is not auto, relay, fcm or off; Android push (encrypted path) is off")
        }
        self.problems = problems
    }

    /// A short name per platform for status and logs: `relay`, `apns`, `fcm` or `off`.
    public var iosName: String {
        switch ios {
        case .relay: "relay"
        case .apns: "apns"
        case .off: "off"
        }
    }

    public var androidName: String {
        switch android {
        case .relay: "relay"
        case .fcm: "fcm"
        case .off: "off"
        }
    }

    /// The reasons platforms are off, for the start-up log.
    public var offReasons: [(platform: String, reason: String)] {
        var reasons: [(String, String)] = []
        if case .off(let reason) = ios { reasons.append(("ios", reason)) }
        if case .off(let reason) = android { reasons.append(("android", reason)) }
        return reasons
    }

    /// The service account named by `path`, or Android off with a reason that names the
    /// setting and never the file's contents.
    private static func loadAccount(_ path: String?) -> Android {
        let setting = "fcmServiceAccountPath (PUSHGATE_FCM_SERVICE_ACCOUNT_PATH)"
        guard let path else { return .off(reason: "\(setting) is not set") }
        do {
            return .fcm(try ServiceAccountFile.load(path: path))
        } catch {
            return .off(reason: "\(setting) \(error.problem)")
        }
    }
}
