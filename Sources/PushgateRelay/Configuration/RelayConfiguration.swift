import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateStore

/// Every setting of `pushgate-relay`, resolved and validated.
///
/// - Important: names, defaults and rules are docs/relay.md's "Settings".
public struct RelayConfiguration: Sendable {
    /// Where and how to reach APNs, or `nil` in dry-run mode.
    public struct APNs: Sendable {
        public var keyId: String
        public var teamId: String
        /// The `.p8` PEM text. Never logged.
        public var p8PEM: String
        public var bundleId: String
        public var productionOrigin: HTTP2Origin
        public var sandboxOrigin: HTTP2Origin
        /// An extra trusted CA certificate file (the fake APNs in tests and demos).
        public var extraCAFile: String?
    }

    public var host: String = "127.0.0.1"
    public var port: Int = 8788
    /// How clients are told apart: proxy hops, trusted proxies, the IPv6 prefix (docs/relay.md "Client address").
    public var clientAddresses = ClientAddressPolicy()
    /// Where `GET /metrics` is served, apart from the public port (`METRICS_LISTEN`); `nil` when `off`.
    public var metricsListen: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 9788)
    public var databasePath = "./data/relay.sqlite"
    /// Switches the store (and the replay set) to PostgreSQL; prints without its password.
    public var databaseURL: PostgreSQLURL?
    public var timestampSkewMs: Int64 = 300_000
    /// Live replay keys beyond which the client holding the most is refused (docs/relay.md "Replay set").
    public var maxReplayKeys = 200_000
    public var registerLimitPerMinute = 60
    public var sendLimitPerMinute = 60
    public var serverSendLimitPerMinute = 120
    /// The caps of the token table and the bindings (docs/relay.md "Bindings").
    public var bindings = BindingPolicy()
    /// New tokens one client IP may add per hour.
    public var newTokensPerIPPerHour = 200
    /// Added to the system clock: lets tests move the relay days ahead (never set in production).
    public var testClockOffsetMs: Int64 = 0
    public var maxInFlight = 64
    /// How long the handling of one request may take: a provider retry starts only when a whole
    /// provider deadline (5 s) still fits before it (docs/relay.md "Retries"). 8 s answers before
    /// the hosts' relay clients give up (10 s for `/v1/push`, 15 s for the signed routes).
    public var requestDeadlineMs: Int64 = 8_000
    /// How long one database call of a PostgreSQL relay may take from being asked: a quarter of
    /// ``requestDeadlineMs``, so the at most three calls of a signed request in turn end before
    /// its deadline (docs/relay.md "Deadlines").
    public var storeCallTimeout: Duration { .milliseconds(requestDeadlineMs / 4) }
    /// `apns-expiration` of signed sends, as seconds from now; `0` means "deliver now or never".
    public var apnsTTLSeconds = APNsNotification.defaultTTLSeconds
    /// Open connections the HTTP server accepts in all (Pushgate extension).
    public var maxConnections = 4_096
    /// Open connections from one client IP (Pushgate extension; by default 1/64 of ``maxConnections``;
    /// peers in `TRUSTED_PROXY_ADDRESSES` are exempt).
    public var maxConnectionsPerIP = 64
    /// Keys each rate limiter tracks, instead of its own default (tests only).
    public var rateLimitMaxKeys: Int?
    /// The app's bundle id: the APNs topic of alerts (`APNS_BUNDLE_ID`; optional in dry-run mode).
    public var bundleId = "dev.pushgate.dry-run"
    /// APNs settings; `nil` when ``dryRun`` is on.
    public var apns: APNs?
    /// Accept deliveries without Apple credentials and write them to ``dryRunLog``.
    public var dryRun = false
    public var dryRunLog: String?
    /// The settings of `POST /v1/push` (protocol/hapi-push.md §7).
    public var hapi = HapiPushSettings()
    /// The signed routes' Android tokens (`ANDROID_*`, docs/relay.md "Android tokens"); `nil`
    /// when no service account is set.
    public var android: AndroidAlertSettings?
    /// The Orca-compatible gateway routes (`PUSHGATE_GATEWAY_*`, docs/gateway.md); `nil` when off.
    public var gateway: GatewayConfiguration?

    /// The least severe log line written (`PUSHGATE_LOG_LEVEL`).
    public var logLevel = Logger.Level.info

    /// Notes on settings that are still accepted but no longer used, logged at start.
    public var warnings: [String] = []

    /// The defaults, with the given APNs settings.
    public init(apns: APNs? = nil) { self.apns = apns }

    /// Settings of earlier releases that are ignored now, and why.
    static let retiredSettings = [
        "REPLAY_MS": "replay keys live until their request's ts + TIMESTAMP_SKEW_MS + 1 s",
        "MAX_REPLAY_ENTRIES": "MAX_REPLAY_KEYS bounds the replay set and refuses only the client holding the most keys",
    ]

    /// Resolves flags over `PUSHGATE_RELAY_*` environment over defaults, and validates.
    public init(arguments: [String], environment: [String: String]) throws(ConfigurationError) {
        let source = try SettingsSource(arguments: arguments, environment: environment)
        // A command line is visible to every local user (`ps`); the environment is not.
        if source.hasFlag("--apns-p8") {
            throw ConfigurationError(setting: "--apns-p8", problem: "would show the key to every local user in `ps`; "
                                     + "set \(SettingsSource.prefix)APNS_P8 or pass the file with --apns-p8-path")
        }
        if let unknown = source.unknownFlags.first {
            throw ConfigurationError(setting: unknown, problem: "is not a relay setting (see pushgate-relay --help)")
        }
        if let level = source.value("PUSHGATE_LOG_LEVEL") {
            guard let parsed = Logger.Level(name: level) else {
                throw ConfigurationError(setting: SettingsSource.displayName("PUSHGATE_LOG_LEVEL"), problem: "must be debug, info, warning or error")
            }
            logLevel = parsed
        }
        host = source.value("HOST") ?? host
        port = try source.integer("PORT", default: port, in: 0...65_535)
        if let raw = source.value("METRICS_LISTEN") { metricsListen = try Self.metricsListen(raw) }
        databasePath = source.value("DATABASE_PATH") ?? databasePath
        if let url = source.value("DATABASE_URL") {
            do {
                databaseURL = try PostgreSQLURL(url)
            } catch {
                throw ConfigurationError(setting: SettingsSource.displayName("DATABASE_URL"), problem: "is not usable: \(error.message)")
            }
            if databaseURL?.hasPassword == true, source.isFromFlag("DATABASE_URL") {
                throw ConfigurationError(setting: "--database-url", problem: "holds a password, which `ps` would show; "
                                         + "set \(SettingsSource.prefix)DATABASE_URL instead")
            }
        }
        timestampSkewMs = Int64(try source.integer("TIMESTAMP_SKEW_MS", default: Int(timestampSkewMs), in: 1_000...86_400_000))
        for (name, reason) in Self.retiredSettings.sorted(by: { $0.key < $1.key }) where source.value(name) != nil {
            warnings.append("\(SettingsSource.displayName(name)) is ignored: \(reason) (docs/relay.md)")
        }
        maxReplayKeys = try source.integer("MAX_REPLAY_KEYS", default: maxReplayKeys, in: 1...50_000_000)
        registerLimitPerMinute = try source.integer("REGISTER_LIMIT_PER_MINUTE", default: registerLimitPerMinute, in: 1...1_000_000)
        sendLimitPerMinute = try source.integer("SEND_LIMIT_PER_MINUTE", default: sendLimitPerMinute, in: 1...1_000_000)
        serverSendLimitPerMinute = try source.integer("SERVER_SEND_LIMIT_PER_MINUTE", default: serverSendLimitPerMinute, in: 1...1_000_000)
        bindings.maxTokens = try source.integer("MAX_TOKENS", default: bindings.maxTokens, in: 1...1_000_000_000)
        bindings.maxTokensPerHost = try source.integer("MAX_TOKENS_PER_HOST", default: bindings.maxTokensPerHost, in: 1...10_000_000)
        newTokensPerIPPerHour = try source.integer("NEW_TOKENS_PER_IP_PER_HOUR", default: newTokensPerIPPerHour, in: 1...10_000_000)
        bindings.ttlMs = Int64(try source.integer("BINDING_TTL_DAYS", default: Int(bindings.ttlMs / 86_400_000), in: 1...3_650)) * 86_400_000
        bindings.protectMs = Int64(try source.integer("BINDING_PROTECT_HOURS", default: Int(bindings.protectMs / 3_600_000),
                                                      in: 0...8_760)) * 3_600_000
        bindings.newBindingsPerDay = try source.integer("NEW_BINDINGS_PER_TOKEN_PER_DAY", default: bindings.newBindingsPerDay,
                                                        in: 1...BindingLimits.hostsPerToken * 64)
        testClockOffsetMs = Int64(try source.integer("TEST_CLOCK_OFFSET_MS", default: 0, in: -315_360_000_000...315_360_000_000))
        if testClockOffsetMs != 0 {
            warnings.append("\(SettingsSource.displayName("TEST_CLOCK_OFFSET_MS")) moves the relay's clock; it is for tests only")
        }
        if source.value("RATE_LIMIT_MAX_KEYS") != nil {
            rateLimitMaxKeys = try source.integer("RATE_LIMIT_MAX_KEYS", default: 0, in: 1...1_000_000)
            warnings.append("\(SettingsSource.displayName("RATE_LIMIT_MAX_KEYS")) shrinks the rate limiters; it is for tests only")
        }
        maxInFlight = try source.integer("MAX_IN_FLIGHT", default: maxInFlight, in: 1...10_000)
        requestDeadlineMs = Int64(try source.integer("REQUEST_DEADLINE_MS", default: Int(requestDeadlineMs), in: 100...60_000))
        apnsTTLSeconds = try source.integer("APNS_TTL_SECONDS", default: apnsTTLSeconds, in: 0...APNsNotification.maxTTLSeconds)
        maxConnections = try source.integer("MAX_CONNECTIONS", default: maxConnections, in: 1...1_000_000)
        maxConnectionsPerIP = try source.integer("MAX_CONNECTIONS_PER_IP", default: max(1, maxConnections / 64), in: 1...1_000_000)
        dryRun = try source.bool("DRY_RUN")
        dryRunLog = source.value("DRY_RUN_LOG")
        apns = dryRun ? nil : try Self.apnsSettings(source)
        bundleId = apns?.bundleId ?? source.value("APNS_BUNDLE_ID") ?? bundleId
        hapi = try HapiPushSettings(source)
        android = try AndroidAlertSettings.load(source)
        gateway = try GatewayConfiguration.from(environment: environment, relayBundleId: bundleId)
        clientAddresses = try ClientAddressPolicy(source, gatewayHops: gateway?.trustedProxyHops ?? 0, warnings: &warnings)
    }

    private static func apnsSettings(_ source: SettingsSource) throws(ConfigurationError) -> APNs {
        func required(_ name: String) throws(ConfigurationError) -> String {
            guard let value = source.value(name) else {
                throw ConfigurationError(setting: SettingsSource.displayName(name), problem: "is required unless --dry-run is given")
            }
            return value
        }
        let keyId = try required("APNS_KEY_ID")
        let teamId = try required("APNS_TEAM_ID")
        let bundleId = try required("APNS_BUNDLE_ID")
        let p8: String
        if let inline = source.value("APNS_P8") {
            p8 = inline.replacingOccurrences(of: "\\n", with: "\n")
        } else if let path = source.value("APNS_P8_PATH") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError(setting: SettingsSource.displayName("APNS_P8_PATH"), problem: "names a file that cannot be read")
            }
            p8 = text
        } else {
            throw ConfigurationError(setting: "\(SettingsSource.displayName("APNS_P8")) or APNS_P8_PATH", problem: "is required unless --dry-run is given")
        }
        let production = try origin(source, "APNS_HOST_PRODUCTION", default: HTTP2Origin(host: "api.push.apple.com"))
        let sandbox = try origin(source, "APNS_HOST_SANDBOX", default: HTTP2Origin(host: "api.sandbox.push.apple.com"))
        let caFile = source.value("APNS_CA_FILE")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError(setting: SettingsSource.displayName("APNS_CA_FILE"), problem: "names a file that cannot be read")
        }
        return APNs(keyId: keyId, teamId: teamId, p8PEM: p8, bundleId: bundleId, productionOrigin: production,
                    sandboxOrigin: sandbox, extraCAFile: caFile)
    }

    /// `METRICS_LISTEN`: an address, or `nil` for `off`.
    private static func metricsListen(_ raw: String) throws(ConfigurationError) -> ListenAddress? {
        if raw.lowercased() == "off" { return nil }
        guard let address = ListenAddress(raw), address.isIPLiteral else {
            throw ConfigurationError(setting: SettingsSource.displayName("METRICS_LISTEN"),
                                     problem: "must be HOST:PORT with an IP address (127.0.0.1:9788, [::1]:9788) or off")
        }
        return address
    }

    static func origin(_ source: SettingsSource, _ name: String, default defaultValue: HTTP2Origin) throws(ConfigurationError) -> HTTP2Origin {
        guard let raw = source.value(name) else { return defaultValue }
        guard let origin = try? HTTP2Origin(url: raw.hasPrefix("https://") ? raw : "https://" + raw) else {
            throw ConfigurationError(setting: SettingsSource.displayName(name), problem: "must be an https origin such as https://127.0.0.1:4443")
        }
        return origin
    }
}
