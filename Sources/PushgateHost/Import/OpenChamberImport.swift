import PushgateCore

/// Reads an OpenChamber `apns-tokens.json` into the host store.
///
/// - Important: protocol/host-api.md §8 — version 1 (`tokensBySession`) and version 2 (plus
///   `liveActivityTokensBySession`, `liveActivityEventVersions`); other versions are refused.
///   An alert entry is a token string or an object with `deviceToken` (OpenChamber's name) or
///   `token`, and optional `platform`, `locale`, `environment`, `client`, `createdAt`,
///   `lastSeenAt` (ms); `platform: "android"` entries are FCM tokens, kept as Android alert
///   tokens with their locale (docs/host.md "Android alert tokens"). Live Activity entries keep `activityId`, `sessionId`,
///   `client` and their snapshot rows (`items` or `snapshot`).
public enum OpenChamberImport {
    /// What an import stored.
    public struct Summary: Sendable, Equatable {
        public var alertTokens = 0
        /// Of ``alertTokens``: the Android (FCM) ones.
        public var androidTokens = 0
        public var liveActivityTokens = 0
        public var eventVersions = 0
    }

    /// Parses `json` and writes its contents into `store`. Alert entries without an environment
    /// get `defaultEnvironment` (OpenChamber keeps one environment for all its tokens).
    public static func run(json: [UInt8], into store: HostStore, defaultEnvironment: String = "production") async throws -> Summary {
        guard let root = (try? JSONValue.parse(json))?.objectValue else {
            throw HostSettingsError("the OpenChamber token file is not a JSON object")
        }
        let version = root["version"]?.int64Value ?? 1
        guard version == 1 || version == 2 else {
            throw HostSettingsError("OpenChamber token file version \(version) is not supported (only 1 and 2); update pushgate-host")
        }
        var summary = Summary()
        for (sessionKey, entries) in root["tokensBySession"]?.objectValue?.members ?? [] {
            for entry in entries.arrayValue ?? [entries] {
                guard let token = alertToken(entry, defaultEnvironment: defaultEnvironment) else {
                    throw HostSettingsError("tokensBySession.\(sessionKey): an entry has no token")
                }
                try await store.upsertAlertToken(token)
                summary.alertTokens += 1
                if token.platform == .android { summary.androidTokens += 1 }
            }
        }
        guard version == 2 else { return summary }
        for (sessionKey, entries) in root["liveActivityTokensBySession"]?.objectValue?.members ?? [] {
            for entry in entries.arrayValue ?? [entries] {
                guard let token = entry["token"]?.stringValue, !token.isEmpty else {
                    throw HostSettingsError("liveActivityTokensBySession.\(sessionKey): an entry has no token")
                }
                let rows = entry["items"] ?? entry["snapshot"] ?? .array([])
                try await store.upsertLiveActivityToken(ImportedLiveActivityToken(
                    token: token, activityId: entry["activityId"]?.stringValue,
                    sessionId: entry["sessionId"]?.stringValue ?? sessionKey, client: entry["client"]?.stringValue,
                    snapshotJSON: rows.serialized()))
                summary.liveActivityTokens += 1
            }
        }
        for (id, value) in root["liveActivityEventVersions"]?.objectValue?.members ?? [] {
            guard let version = value.int64Value else { throw HostSettingsError("liveActivityEventVersions.\(id) is not an integer") }
            try await store.raiseEventVersion(id, to: version)
            summary.eventVersions += 1
        }
        return summary
    }

    private static func alertToken(_ entry: JSONValue, defaultEnvironment: String) -> AlertToken? {
        if let token = entry.stringValue { return token.isEmpty ? nil : AlertToken(token: token, environment: defaultEnvironment) }
        guard let token = (entry["deviceToken"] ?? entry["token"])?.stringValue, !token.isEmpty else { return nil }
        let environment = entry["environment"]?.stringValue ?? entry["env"]?.stringValue
        let platform: AlertToken.Platform = entry["platform"]?.stringValue == "android" ? .android : .ios
        return AlertToken(token: token, client: entry["client"]?.stringValue, platform: platform, locale: entry["locale"]?.stringValue,
                          environment: environment.map { $0 == "sandbox" ? "sandbox" : "production" } ?? defaultEnvironment,
                          createdAtMs: entry["createdAt"]?.int64Value ?? 0, lastSeenAtMs: entry["lastSeenAt"]?.int64Value ?? 0)
    }
}

/// A Live Activity token carried over from an OpenChamber token file, kept for the Live
/// Activity engine: its activity, session, owner and snapshot rows as JSON text.
public struct ImportedLiveActivityToken: Sendable, Equatable {
    public var token: String
    public var activityId: String?
    public var sessionId: String?
    public var client: String?
    /// The snapshot rows, compact JSON (`[]` when the file had none).
    public var snapshotJSON: String

    public init(token: String, activityId: String?, sessionId: String?, client: String?, snapshotJSON: String) {
        self.token = token
        self.activityId = activityId
        self.sessionId = sessionId
        self.client = client
        self.snapshotJSON = snapshotJSON
    }
}
