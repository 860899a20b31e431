import PushgateCore
import PushgateHTTP

/// `POST` and `DELETE /api/devices/register`: the hapi device registry behind the host API.
///
/// - Important: protocol/hapi-push.md §5 — a Pushgate host has one access token and so one namespace,
///   `default`; 200 `{"ok":true}` also when push is off or nothing matched; the key is never
///   logged and the token only as a short hash.
enum HapiDeviceRoutes {
    /// The namespace of the host's one access token.
    static let namespace = "default"

    static func register(_ json: JSONValue, store: HostStore, logger: Logger) async throws -> HTTPResponse {
        let registration = try DeviceRegistration(json: json)
        try await store.registerHapiDevice(namespace: namespace, token: registration.token, platform: registration.platform,
                                           deviceId: registration.deviceId, pushKey: registration.pushKey)
        logger.info("hapi device registered", ["token": Redact.token(registration.token), "platform": registration.platform.rawValue,
                                               "pushKey": registration.pushKey == nil ? "none" : "set"])
        return APIResponse.ok
    }

    static func unregister(_ json: JSONValue, store: HostStore, logger: Logger) async throws -> HTTPResponse {
        let token = try DeviceRegistration.token(try FieldReader(json, path: ""))
        let removed = try await store.unregisterHapiDevices(namespace: namespace, token: token)
        logger.info("hapi device unregistered", ["token": Redact.token(token), "rows": "\(removed)"])
        return APIResponse.ok
    }
}
