import PushgateCore
@testable import PushgateHost
import PushgateTesting

/// Opens what a device received, as its notification service extension would.
enum DeviceSide {
    /// The payload of an APNs request's `hapi` object, after checking the placeholder alert.
    static func open(_ request: RecordedRequest, key: HapiPushKey) throws -> (payload: HapiPayload, envelope: String) {
        let payload = try require(request.payload, "no payload")
        let aps = try require(payload["aps"], "no aps")
        guard aps["alert"]?["title"] == "HAPI", aps["alert"]?["body"] == "New activity", aps["mutable-content"] == 1,
              payload["hapi"]?["v"] == 1 else { throw DeviceSideError(message: "not the placeholder alert") }
        let envelope = try require(payload["hapi"]?["e"]?.stringValue, "no envelope")
        return (try HapiPayload(plaintext: HapiEnvelope.open(envelope, key: key)), envelope)
    }

    /// The plaintext bytes of an envelope.
    static func plaintext(_ envelope: String, key: HapiPushKey) throws -> String {
        String(decoding: try HapiEnvelope.open(envelope, key: key), as: UTF8.self)
    }

    private static func require<T>(_ value: T?, _ message: String) throws -> T {
        guard let value else { throw DeviceSideError(message: message) }
        return value
    }
}

struct DeviceSideError: Error {
    let message: String
}
