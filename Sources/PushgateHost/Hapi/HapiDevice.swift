/// The kind of device a hapi registration is for.
///
/// - Important: protocol/hapi-push.md §5 — exactly `phone` (Android phone), `wear` (Wear OS) or `ios`.
public enum HapiDevicePlatform: String, Sendable, CaseIterable {
    case phone, wear, ios
}

/// One registration row of the encrypted path (`hapi_devices`).
public struct HapiDevice: Sendable, Equatable {
    /// The tenant of the host bearer token; `default` for a Pushgate host.
    public var namespace: String
    /// The push token as registered (APNs hex or an opaque FCM token).
    public var token: String
    public var platform: HapiDevicePlatform
    /// The install's stable id, 1–128 UTF-16 code units.
    public var deviceId: String
    /// The padded base64 of the 32-byte key (44 characters), or nil.
    public var pushKey: String?
    public var createdAtMs: Int64
    public var updatedAtMs: Int64

    public init(namespace: String, token: String, platform: HapiDevicePlatform, deviceId: String, pushKey: String?,
                createdAtMs: Int64 = 0, updatedAtMs: Int64 = 0) {
        self.namespace = namespace
        self.token = token
        self.platform = platform
        self.deviceId = deviceId
        self.pushKey = pushKey
        self.createdAtMs = createdAtMs
        self.updatedAtMs = updatedAtMs
    }
}
