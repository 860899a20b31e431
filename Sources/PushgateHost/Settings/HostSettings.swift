import Foundation
import PushgateCore

/// The host's resolved settings: home, identity, access token, listen address and transports.
///
/// - Important: host.md §1 — each value resolves env > settings.json > default; an env value
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
    /// The signed relay's base URL, when set.
    public let relayURL: String?
    public let iosPushMode: IOSPushMode
    /// Direct-APNs credentials; set only in `apns` mode.
    public let directAPNs: DirectAPNsSettings?
    public let logLevel: Logger.Level
    /// Milliseconds between Live Activity refresh ticks; 0 disables the tick.
    public let liveActivityRefreshIntervalMs: Int64

    /// `host.sqlite` in the home.
    public var databasePath: String { (home as NSString).appendingPathComponent("host.sqlite") }
    /// The identity's `serverId`.
    public var serverId: String { signingKey.publicKey.serverId }

    /// Prepares the home, creates the identity and access token on first start, persists
    /// first-seen env values, and resolves every setting.
    public static func load(environment: [String: String]) throws -> HostSettings {
        let home = try HomePath.prepare(environment: environment)
        let file = SettingsFile(path: (home as NSString).appendingPathComponent("settings.json"))
        func env(_ name: SettingName) -> String? {
            guard let raw = environment[name.environment], !raw.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return raw
        }
        let stored = try file.update { object -> JSONObject in
            // Checked before anything is written: a broken identity must leave the file as it was.
            let existingKey = try SigningIdentity.read(from: object)
            for name in SettingName.all where object[name.key] == nil {
                if let value = env(name) { object[name.key] = .string(value) }
            }
            if existingKey == nil { object[SigningIdentity.settingsKey] = try SigningIdentity.value(for: P256PrivateKey()) }
            if object[SettingName.accessToken.key] == nil {
                object[SettingName.accessToken.key] = .string(Base64URL.encode(SecureRandom.bytes(32)))
            }
            return object
        }
        func value(_ name: SettingName) -> String? {
            let raw = env(name) ?? stored[name.key]?.stringValue.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            return raw.map { name.isPath ? HomePath.expand($0, environment: environment) : $0 }
        }
        guard let key = try SigningIdentity.read(from: stored) else { throw HostSettingsError("settings.json lost relaySigningKey while starting") }
        guard let accessToken = value(.accessToken) else { throw HostSettingsError("accessToken is empty in settings.json") }
        let (host, port) = try parseListen(value(.listen) ?? defaultListen)
        let modeText = value(.iosPush) ?? IOSPushMode.relay.rawValue
        guard let mode = IOSPushMode(rawValue: modeText.lowercased()) else {
            throw HostSettingsError("PUSHGATE_IOS_PUSH (settings key iosPushMode) must be relay, apns or off")
        }
        let relayURL = value(.relayURL)
        if let relayURL, URL(string: relayURL)?.scheme.map({ ["http", "https"].contains($0) }) != true {
            throw HostSettingsError("PUSHGATE_PUSH_RELAY_URL must be an http(s) URL such as https://relay.example.com")
        }
        var level = Logger.Level.info
        if let text = value(.logLevel) {
            guard let parsed = Logger.Level(name: text) else { throw HostSettingsError("PUSHGATE_LOG_LEVEL must be debug, info, warning or error") }
            level = parsed
        }
        return HostSettings(home: home, file: file, signingKey: key, accessToken: accessToken, listenHost: host, listenPort: port,
                            relayURL: relayURL, iosPushMode: mode,
                            directAPNs: mode == .apns ? try DirectAPNsSettings.resolve(value) : nil, logLevel: level,
                            liveActivityRefreshIntervalMs: refreshInterval(value(.liveActivityRefreshInterval)))
    }

    /// `PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS`: whole milliseconds, `0` disables the tick;
    /// unset, invalid or negative → the default (host.md §6).
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

    /// `host:port` with an IPv4/IPv6 literal (`[::1]:8789` for IPv6).
    static func parseListen(_ text: String) throws -> (String, UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw HostSettingsError("PUSHGATE_HOST_LISTEN must look like 127.0.0.1:8789")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw HostSettingsError("PUSHGATE_HOST_LISTEN must look like 127.0.0.1:8789") }
        return (host, port)
    }
}
