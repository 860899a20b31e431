/// The function a notification service extension (iOS) or a messaging service (Android) calls
/// on each received push: find the encrypted marker, check the version, decrypt with the
/// device's `pushKey`, validate the payload.
///
/// Pure Swift apart from the AES-GCM open of ``HapiEnvelope``: no file, socket or platform API.
///
/// - Important: protocol/hapi-push.md §3 receiver rules 1–6, in order; §11 line 8 (device-drop).
public enum HapiDeviceDecoder {
    /// iOS: `payload` is the notification's whole APNs payload (`userInfo`). The marker is a
    /// top-level `hapi` member; `hapi.v` must be the number 1 and `hapi.e` the envelope.
    public static func decode(apnsPayload payload: JSONObject, key: HapiPushKey?) -> HapiDeviceMessage {
        guard let marker = payload["hapi"] else { return .notEncrypted }
        guard let hapi = marker.objectValue, hapi["v"]?.doubleValue == 1 else {
            return .drop(.unsupportedVersion)
        }
        return open(hapi["e"]?.stringValue, key: key)
    }

    /// Android: `data` is the FCM data map. The marker is `hapi_v` or `hapi_e`; `hapi_v` must be
    /// the string `"1"` and `hapi_e` the envelope.
    public static func decode(fcmData data: [String: String], key: HapiPushKey?) -> HapiDeviceMessage {
        guard data["hapi_v"] != nil || data["hapi_e"] != nil else { return .notEncrypted }
        guard data["hapi_v"] == "1" else { return .drop(.unsupportedVersion) }
        return open(data["hapi_e"], key: key)
    }

    /// Rules 3–6.
    private static func open(_ envelope: String?, key: HapiPushKey?) -> HapiDeviceMessage {
        guard let key else { return .drop(.missingKey) }
        guard let envelope else { return .drop(.invalidEnvelope) }
        let plaintext: [UInt8]
        do {
            plaintext = try HapiEnvelope.open(envelope, key: key)
        } catch {
            return .drop(error.reason == .authenticationFailed ? .authenticationFailed : .invalidEnvelope)
        }
        guard let payload = try? HapiPayload(plaintext: plaintext) else { return .drop(.invalidPayload) }
        return .notification(payload)
    }
}
