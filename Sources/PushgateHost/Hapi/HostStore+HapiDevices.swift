import PushgateCore
import PushgateStore

/// The hapi device registry in `host.sqlite`.
///
/// - Important: protocol/hapi-push.md §5 — one register call is one transaction: first every row in
///   any namespace holding the token under another `(namespace, device_id, platform)` is
///   deleted, then the row is inserted or its token, key and `updated_at` replaced
///   (`created_at` kept). Registrations and unregistrations the API acknowledges are fsynced
///   first (`durably`, as alert tokens are); deletions of dead rows during a dispatch are not.
extension HostStore {
    /// Registers (or re-registers) one device.
    public func registerHapiDevice(namespace: String, token: String, platform: HapiDevicePlatform, deviceId: String,
                                   pushKey: String?) throws {
        let row = HapiDevice(namespace: namespace, token: token, platform: platform, deviceId: deviceId, pushKey: pushKey)
        let now = clock.nowMilliseconds
        try connection.durably {
            try connection.transaction(.immediate) { try replace(with: row, now: now) }
        }
        noteHapiDevices(exist: true)
    }

    /// Token de-duplication, then the upsert (inside the caller's transaction).
    private func replace(with row: HapiDevice, now: Int64) throws {
        try connection.withStatement("""
            DELETE FROM hapi_devices WHERE token = ? AND NOT (namespace = ? AND device_id = ? AND platform = ?)
            """) { statement in
            try statement.bind(row.token, at: 1)
            try statement.bind(row.namespace, at: 2)
            try statement.bind(row.deviceId, at: 3)
            try statement.bind(row.platform.rawValue, at: 4)
            try statement.step()
        }
        try connection.withStatement("""
            INSERT INTO hapi_devices (namespace, token, platform, device_id, push_key, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (namespace, device_id, platform) DO UPDATE SET
                token = excluded.token, push_key = excluded.push_key, updated_at = excluded.updated_at
            """) { statement in
            try statement.bind(row.namespace, at: 1)
            try statement.bind(row.token, at: 2)
            try statement.bind(row.platform.rawValue, at: 3)
            try statement.bind(row.deviceId, at: 4)
            try bindOptional(statement, row.pushKey, at: 5)
            try statement.bind(now, at: 6)
            try statement.bind(now, at: 7)
            try statement.step()
        }
    }

    /// Deletes the rows holding `token` in `namespace` only (`DELETE /api/devices/register`,
    /// acknowledged to the phone, so durably); returns how many went.
    @discardableResult
    public func unregisterHapiDevices(namespace: String, token: String) throws -> Int {
        try connection.durably { try deleteHapiDevices(namespace: namespace, token: token) }
    }

    /// Deletes the rows holding `token` in `namespace` only (a dead token); returns how many went.
    @discardableResult
    public func deleteHapiDevices(namespace: String, token: String) throws -> Int {
        try connection.withStatement("DELETE FROM hapi_devices WHERE namespace = ? AND token = ?") { statement in
            try statement.bind(namespace, at: 1)
            try statement.bind(token, at: 2)
            try statement.step()
        }
        let deleted = connection.changes
        if deleted > 0 { noteHapiDevices(exist: try hapiDeviceCount() > 0) }
        return deleted
    }

    /// The rows of `namespace`, newest `updated_at` first.
    public func hapiDevices(namespace: String) throws -> [HapiDevice] {
        try connection.withStatement("""
            SELECT namespace, token, platform, device_id, push_key, created_at, updated_at FROM hapi_devices
            WHERE namespace = ? ORDER BY updated_at DESC, rowid DESC
            """) { statement in
            try statement.bind(namespace, at: 1)
            var devices: [HapiDevice] = []
            while try statement.step() {
                // A platform this version does not know is skipped, never guessed.
                guard let platform = HapiDevicePlatform(rawValue: statement.string(at: 2) ?? "") else { continue }
                devices.append(HapiDevice(namespace: statement.string(at: 0) ?? "", token: statement.string(at: 1) ?? "",
                                          platform: platform, deviceId: statement.string(at: 3) ?? "",
                                          pushKey: statement.string(at: 4), createdAtMs: statement.int64(at: 5),
                                          updatedAtMs: statement.int64(at: 6)))
            }
            return devices
        }
    }

    /// How many hapi device rows there are, in every namespace (for `GET /api/status`).
    public func hapiDeviceCount() throws -> Int {
        try connection.withStatement("SELECT count(*) FROM hapi_devices") { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }
}
