import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The host's resolved settings: home, identity, access token, listen address and transports.
///
/// - Important: protocol/host-api.md §1 — each value resolves env > settings.json > default; an env value
///   is written into settings.json once, when its key is absent there, and never overwrites it.
public struct HostSettings: Sendable {
    /// The default `PUSHGATE_HOST_LISTEN`.
    public static let defaultListen = "127.0.0.1:8789"

    /// The host home directory.
    public let home: String
    /// `settings.json` in the home.
    public let file: SettingsFile
    /// The relay signing key.
    public let signingKey: P256PrivateKey
    /// The bearer token every `/api/*` call must carry.
    public let accessToken: String
    /// The address to bind.
    public let listenHost: String
    /// The port to bind (0 picks a free one).
    public let listenPort: UInt16
    /// The signed relay's base URL, when set (and an absolute http or https URL).
    public let relayURL: String?
    /// The iOS mode; an unknown value resolves to `relay` with a diagnostic.
    public let iosPushMode: IOSPushMode
    /// Direct-APNs credentials; set only in `apns` mode, and only when they are complete and usable.
    public let directAPNs: DirectAPNsSettings?
    /// The Android alert tokens' mode; an unknown value resolves to `relay`, a `direct` mode
    /// without a usable service account to `off`, each with a diagnostic.
    public let androidAlertPushMode: AndroidAlertPushMode
    /// The operator's Firebase project for Android alert tokens; set only in `direct` mode.
    public let directFCMAlerts: DirectFCMAlertSettings?
    /// The encrypted path's own settings (Android mode, relay URL, FCM account, APNs environment).
    public let hapi: HapiSettings
    /// Settings the host could not use, and what it does instead (unknown values, broken
    /// credentials, bad URLs); logged at start-up, and what makes `--check-config` fail.
    public let diagnostics: [String]
    /// Settings that work but put something at risk (a relay over plain http to another
    /// machine); logged at start-up.
    public let warnings: [String]
    public let logLevel: Logger.Level
    /// How long APNs (`apns-expiration`) and FCM (`android.ttl`) keep trying an offline device
    /// for the host's direct modes, in seconds; 0 delivers now or never.
    public let apnsTTLSeconds: Int
    /// Milliseconds between Live Activity refresh ticks; 0 disables the tick.
    public let liveActivityRefreshIntervalMs: Int64
    /// Push-to-start and the priority budget (`PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS`,
    /// `PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE`, `PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR`).
    public let liveActivity: LiveActivityPolicy
    /// `PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS`: how long a desktop's report that it shows a session holds.
    public let desktopVisibleTTLSeconds: Int
    /// How long and how many pushes the outbox keeps (`PUSHGATE_OUTBOX_DEADLINE_SECONDS`,
    /// `PUSHGATE_OUTBOX_MAX`).
    public let outbox: OutboxPolicy
    /// Where `GET /metrics` is served (`PUSHGATE_METRICS_LISTEN`); nil when off.
    public let metricsListen: ListenAddress?
    /// `PUSHGATE_TIME_SENSITIVE` (`on`, the default, or `off`): off sends time-sensitive alerts
    /// as `active` (docs/host.md, "Attention").
    public let timeSensitive: Bool
    /// `PUSHGATE_DISMISS_MODE`: how a `resolved` event dismisses what it resolves (docs/host.md, "Dismissal").
    public let dismissMode: DismissMode

    /// `host.sqlite` in the home.
    public var databasePath: String { (home as NSString).appendingPathComponent("host.sqlite") }
    /// The identity's `serverId`.
    public var serverId: String { signingKey.publicKey.serverId }

    /// Prepares the home, creates the identity and access token on first start, persists
    /// first-seen env values, and resolves every setting.
    ///
    /// - Important: protocol/hapi-push.md §6 — a value is the Pushgate variable, else its hapi alias (each
    ///   only when non-blank), else the settings.json string, else the default; values are
    ///   trimmed. A key absent from settings.json gets the env value written once.
    public static func load(environment: [String: String]) throws -> HostSettings {
        let home = try HomePath.prepare(environment: environment)
        let file = SettingsFile(path: (home as NSString).appendingPathComponent("settings.json"))
        let stored = try file.update { object -> JSONObject in
            try firstStart(&object, environment: environment)
            return object
        }
        return try resolve(home: home, file: file, stored: stored, environment: environment)
    }

    /// The settings a start would resolve, with nothing created or written (`--check-config`):
    /// the home and settings.json are read when they exist, and what a first start would add to
    /// the file (environment values, a new identity and access token) is added in memory only.
    /// `stored` is the file's object as it is now; `isFirstStart` tells that the identity does
    /// not exist yet.
    public static func inspect(environment: [String: String]) throws -> (settings: HostSettings, stored: JSONObject, isFirstStart: Bool) {
        let home = HomePath.path(environment: environment)
        let file = SettingsFile(path: (home as NSString).appendingPathComponent("settings.json"))
        let stored = try file.read()
        var started = stored
        try firstStart(&started, environment: environment)
        return (try resolve(home: home, file: file, stored: started, environment: environment), stored,
                stored[SigningIdentity.settingsKey] == nil)
    }

    /// What a start writes into settings.json: environment values whose key is absent, and an
    /// identity and access token when there are none.
    private static func firstStart(_ object: inout JSONObject, environment: [String: String]) throws {
        // Checked before anything is written: a broken identity must leave the file as it was.
        let existingKey = try SigningIdentity.read(from: object)
        for name in SettingName.table {
            if let key = name.key, object[key] == nil, let value = environmentValue(name, environment) { object[key] = .string(value) }
        }
        if existingKey == nil { object[SigningIdentity.settingsKey] = try SigningIdentity.value(for: P256PrivateKey()) }
        if let key = SettingName.accessToken.key, object[key] == nil {
            object[key] = .string(Base64URL.encode(SecureRandom.bytes(32)))
        }
    }

    /// The setting's Pushgate variable, else its first hapi alias that is set; blank → nil.
    static func environmentValue(_ name: SettingName, _ environment: [String: String]) -> String? {
        source(of: name, environment, stored: JSONObject()).map(\.value)
    }

    /// The raw value of `name` and where it came from: the variable that set it, else
    /// `settings.json <key>`; nil when neither holds it (the default applies).
    public static func source(of name: SettingName, _ environment: [String: String],
                              stored: JSONObject) -> (value: String, origin: String)? {
        if let variable = name.environmentNames.first(where: { environment[$0].flatMap(nonBlank) != nil }),
           let value = environment[variable].flatMap(nonBlank) {
            return (value, variable)
        }
        let storedKey = ([name.key].compactMap { $0 } + name.legacyKeys).first { stored[$0] != nil }
        guard let storedKey, let value = stored[storedKey]?.stringValue.flatMap(nonBlank) else { return nil }
        return (value, "settings.json \(storedKey)")
    }

    private static func resolve(home: String, file: SettingsFile, stored: JSONObject, environment: [String: String]) throws -> HostSettings {
        func value(_ name: SettingName) -> String? {
            source(of: name, environment, stored: stored).map { name.isPath ? HomePath.expand($0.value, environment: environment) : $0.value }
        }
        guard let key = try SigningIdentity.read(from: stored) else { throw HostSettingsError("settings.json lost relaySigningKey while starting") }
        guard let accessToken = value(.accessToken) else { throw HostSettingsError("accessToken is empty in settings.json") }
        let (host, port) = try parseListen(value(.listen) ?? defaultListen)
        var diagnostics: [String] = []
        let modeText = (value(.iosPush) ?? IOSPushMode.relay.rawValue).lowercased()
        var mode = IOSPushMode(rawValue: modeText) ?? .relay
        if IOSPushMode(rawValue: modeText) == nil {
            diagnostics.append("iosPushMode (PUSHGATE_IOS_PUSH) is not relay, apns or off; using relay")
        }
        var directAPNs: DirectAPNsSettings?
        if mode == .apns {
            do {
                directAPNs = try DirectAPNsSettings.resolve(value)
            } catch let error as HostSettingsError {
                diagnostics.append("iOS push is off: " + error.description)
                mode = .off
            }
        }
        let androidAlertText = (value(.androidAlertPush) ?? AndroidAlertPushMode.relay.rawValue).lowercased()
        var androidAlertMode = AndroidAlertPushMode(rawValue: androidAlertText) ?? .relay
        if AndroidAlertPushMode(rawValue: androidAlertText) == nil {
            diagnostics.append("androidAlertPushMode (PUSHGATE_ANDROID_ALERT_PUSH) is not relay, direct or off; using relay")
        }
        var directFCMAlerts: DirectFCMAlertSettings?
        if androidAlertMode == .direct {
            do {
                directFCMAlerts = try DirectFCMAlertSettings.resolve(value)
            } catch let error as HostSettingsError {
                diagnostics.append("Android alert push is off: " + error.description)
                androidAlertMode = .off
            }
        }
        var relayURL = value(.relayURL)
        if let url = relayURL, !isHTTPURL(url) {
            diagnostics.append("pushRelayUrl (PUSHGATE_PUSH_RELAY_URL) is not an absolute http or https URL; the relay transports are off")
            relayURL = nil
        }
        var warnings: [String] = []
        if let url = relayURL, isPlainHTTPBeyondLoopback(url) {
            warnings.append("pushRelayUrl (PUSHGATE_PUSH_RELAY_URL) is plain http to another machine: device tokens and "
                               + "titles cross the network unencrypted; use https")
        }
        var level = Logger.Level.info
        if let text = value(.logLevel) {
            guard let parsed = Logger.Level(name: text) else { throw HostSettingsError("PUSHGATE_LOG_LEVEL must be debug, info, warning or error") }
            level = parsed
        }
        let apnsTTLSeconds = try wholeNumber(value(.apnsTTL), .apnsTTL, in: 0...APNsNotification.maxTTLSeconds,
                                             default: APNsNotification.defaultTTLSeconds)
        let outbox = OutboxPolicy(
            deadlineSeconds: try wholeNumber(value(.outboxDeadline), .outboxDeadline, in: 0...maxOutboxDeadlineSeconds,
                                             default: OutboxPolicy.defaultDeadlineSeconds),
            maxEntries: try wholeNumber(value(.outboxMax), .outboxMax, in: 1...maxOutboxEntries, default: OutboxPolicy.defaultMaxEntries))
        var metricsListen: ListenAddress?
        if let text = value(.metricsListen), text.lowercased() != "off" {
            guard let address = ListenAddress(text) else {
                throw HostSettingsError("PUSHGATE_METRICS_LISTEN must be off or look like 127.0.0.1:9789")
            }
            metricsListen = address
        }
        let liveActivity = try Self.liveActivityPolicy(value)
        let desktopVisibleTTLSeconds = try wholeNumber(value(.desktopVisibleTTL), .desktopVisibleTTL, in: 1...maxDesktopVisibleTTLSeconds,
                                                       default: DesktopPresence.defaultTTLSeconds)
        let timeSensitive = try Self.onOff(value(.timeSensitive), .timeSensitive, default: true)
        let dismissText = value(.dismissMode)?.lowercased() ?? DismissMode.banner.rawValue
        guard let dismissMode = DismissMode(rawValue: dismissText) else {
            throw HostSettingsError("PUSHGATE_DISMISS_MODE must be banner or background")
        }
        let hapi = HapiSettings(androidPushMode: (value(.androidPush) ?? HapiSettings.defaultAndroidPushMode).lowercased(),
                                relayURL: value(.relayURL) == nil ? HapiSettings.defaultRelayURL : relayURL,
                                fcmServiceAccountPath: value(.fcmServiceAccountPath),
                                apnsEnvironment: value(.apnsEnv)?.lowercased() == "sandbox" ? .sandbox : .production,
                                fcmOrigin: value(.fcmOrigin), fcmTokenURI: value(.fcmTokenURI), fcmCAFile: value(.fcmCAFile))
        return HostSettings(home: home, file: file, signingKey: key, accessToken: accessToken, listenHost: host, listenPort: port,
                            relayURL: relayURL, iosPushMode: mode, directAPNs: directAPNs, androidAlertPushMode: androidAlertMode,
                            directFCMAlerts: directFCMAlerts, hapi: hapi,
                            diagnostics: diagnostics, warnings: warnings, logLevel: level, apnsTTLSeconds: apnsTTLSeconds,
                            liveActivityRefreshIntervalMs: refreshInterval(value(.liveActivityRefreshInterval)),
                            liveActivity: liveActivity, desktopVisibleTTLSeconds: desktopVisibleTTLSeconds, outbox: outbox,
                            metricsListen: metricsListen, timeSensitive: timeSensitive, dismissMode: dismissMode)
    }

    /// The longest `PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS`: a day.
    static let maxStartCooldownSeconds = 86_400
    /// The largest `PUSHGATE_LIVE_ACTIVITY_HIGH_PRIORITY_PER_HOUR`.
    static let maxHighPriorityPerHour = 3_600
    /// The longest `PUSHGATE_DESKTOP_VISIBLE_TTL_SECONDS`: an hour.
    static let maxDesktopVisibleTTLSeconds = 3_600

    /// The Live Activity policy's settings: the cooldown (0–86 400 s), the attributes type (a
    /// Swift type name, as the relay requires it) and the priority budget (0–3 600 an hour).
    static func liveActivityPolicy(_ value: (SettingName) -> String?) throws -> LiveActivityPolicy {
        let attributesType = value(.liveActivityAttributesType) ?? LiveActivityPolicy.defaultAttributesType
        guard (try? LiveActivityStart(attributesType: attributesType, attributes: JSONObject(), alertTitle: "t")) != nil else {
            throw HostSettingsError("PUSHGATE_LIVE_ACTIVITY_ATTRIBUTES_TYPE must be a Swift type name: a letter or _, then letters, "
                                    + "digits and _, at most 128")
        }
        return LiveActivityPolicy(
            startCooldownSeconds: try wholeNumber(value(.liveActivityStartCooldown), .liveActivityStartCooldown,
                                                  in: 0...maxStartCooldownSeconds, default: LiveActivityPolicy.defaultStartCooldownSeconds),
            attributesType: attributesType,
            highPriorityPerHour: try wholeNumber(value(.liveActivityHighPriorityPerHour), .liveActivityHighPriorityPerHour,
                                                 in: 0...maxHighPriorityPerHour, default: LiveActivityPolicy.defaultHighPriorityPerHour))
    }

    /// The longest `PUSHGATE_OUTBOX_DEADLINE_SECONDS`: a week (a push older than that is news no more).
    static let maxOutboxDeadlineSeconds = 7 * 86_400
    /// The largest `PUSHGATE_OUTBOX_MAX`.
    static let maxOutboxEntries = 10_000_000

    /// A setting's whole number within `range`, or `fallback` when unset.
    static func wholeNumber(_ text: String?, _ name: SettingName, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw HostSettingsError("\(name.environment) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A setting that is `on` or `off` (any case), or `fallback` when unset.
    static func onOff(_ text: String?, _ name: SettingName, default fallback: Bool) throws -> Bool {
        switch text?.lowercased() {
        case nil: return fallback
        case "on": return true
        case "off": return false
        default: throw HostSettingsError("\(name.environment) must be on or off")
        }
    }

    /// `PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS`: whole milliseconds, `0` disables the tick;
    /// unset, invalid or negative → the default (protocol/host-api.md §6).
    static func refreshInterval(_ text: String?) -> Int64 {
        guard let text, let milliseconds = Int64(text.trimmingCharacters(in: .whitespaces)), milliseconds >= 0 else {
            return LiveActivityEngine.defaultRefreshIntervalMs
        }
        return milliseconds
    }

    /// Replaces the signing identity in settings.json; returns the new key.
    public static func rotateIdentity(in file: SettingsFile) throws -> P256PrivateKey {
        let key = P256PrivateKey()
        try file.update { object in object[SigningIdentity.settingsKey] = try SigningIdentity.value(for: key) }
        return key
    }

    /// The trimmed text, or nil when it is blank.
    static func nonBlank(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether `text` is an absolute `http` or `https` URL with a host.
    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// Whether `text` is an `http` URL whose host is not this machine (`localhost`, 127.0.0.0/8, `::1`).
    static func isPlainHTTPBeyondLoopback(_ text: String) -> Bool {
        guard let url = URL(string: text), url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return false }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var address = in_addr()
        let isLoopbackIPv4 = inet_pton(AF_INET, bare, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
        return !(bare == "localhost" || bare == "::1" || isLoopbackIPv4)
    }

    /// `host:port` (`[::1]:8789` for IPv6).
    static func parseListen(_ text: String) throws -> (String, UInt16) {
        guard let address = ListenAddress(text) else { throw HostSettingsError("PUSHGATE_HOST_LISTEN must look like 127.0.0.1:8789") }
        return (address.host, address.port)
    }
}

/// How a `resolved` event dismisses the notifications it resolves (`PUSHGATE_DISMISS_MODE`,
/// docs/host.md "Dismissal").
public enum DismissMode: String, Sendable, CaseIterable {
    /// A passive "Answered on desktop" alert replaces each banner through its collapse id (or
    /// Android tag): works with any app, an unmodified one included.
    case banner
    /// The replacement, then a background push listing the collapse ids resolved in the last
    /// 24 h, for an app that removes them itself.
    case background
}

/// How iOS alert pushes leave the host: through the signed relay, straight to APNs, or not at all.
///
/// - Important: protocol/host-api.md §5 — `relay` is the default.
public enum IOSPushMode: String, Sendable, CaseIterable {
    case relay
    case apns
    case off
}
