import PushgateCore

/// The body of `POST /api/devices/register`, validated in the spec's order.
///
/// - Important: protocol/hapi-push.md §5 — `token` (non-empty string), `platform` (`phone`, `wear`,
///   `ios`), `deviceId` (1–128 UTF-16 code units), `pushKey` (required for `ios`, validated
///   whenever present for `phone`, ignored for `wear`); the first failure names its field and
///   never echoes the value; unknown members (e.g. `language`) are ignored.
struct DeviceRegistration: Equatable {
    /// The longest `deviceId`, in UTF-16 code units.
    static let maxDeviceIdLength = 128

    var token: String
    var platform: HapiDevicePlatform
    var deviceId: String
    /// The padded base64 to store, or nil.
    var pushKey: String?

    init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        token = try Self.token(reader)
        guard let platform = reader.object["platform"]?.stringValue.flatMap(HapiDevicePlatform.init(rawValue:)) else {
            throw WireFieldError(field: "platform", problem: "must be phone, wear or ios")
        }
        self.platform = platform
        guard let deviceId = reader.object["deviceId"]?.stringValue,
              (1...Self.maxDeviceIdLength).contains(deviceId.utf16.count) else {
            throw WireFieldError(field: "deviceId", problem: "must be a string of 1 to \(Self.maxDeviceIdLength) characters")
        }
        self.deviceId = deviceId
        switch (platform, reader.object["pushKey"]) {
        case (.wear, _), (.phone, nil):
            pushKey = nil
        case (.ios, nil):
            throw WireFieldError(field: "pushKey", problem: "is required for ios")
        case (_, let value?):
            guard let text = value.stringValue else { throw WireFieldError(field: "pushKey", problem: "must be base64 of 32 bytes") }
            pushKey = try HapiPushKey(base64: text).storedForm
        }
    }

    /// `token` of a register or unregister body: a non-empty string.
    static func token(_ reader: FieldReader) throws(WireFieldError) -> String {
        guard let token = reader.object["token"]?.stringValue, !token.isEmpty else {
            throw WireFieldError(field: "token", problem: "must be a non-empty string")
        }
        return token
    }
}
