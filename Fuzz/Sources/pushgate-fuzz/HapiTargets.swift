@testable import PushgateCore

/// The hapi envelope and the device-side decoder, under the key of Fixtures/vectors/hapi-envelopes.json.
enum HapiTargets {
    static let key = HapiPushKey(bytes: Array(0...31))!
    static let nonce: [UInt8] = Array(0...11)

    /// `HapiEnvelope.open` of the input as an envelope; and the input as a plaintext, sealed and
    /// opened again, which must give it back in an envelope of the announced length.
    static let envelope = FuzzTarget("hapi-envelope") { input in
        let bytes = Array(input)
        if let plaintext = try? HapiEnvelope.open(String(decoding: bytes, as: UTF8.self), key: key) {
            _ = try? HapiPayload(plaintext: plaintext)
        }
        guard HapiEnvelope.fits(plaintextByteCount: bytes.count) else { return }
        guard let sealed = try? HapiEnvelope.seal(bytes, key: key, nonce: nonce) else { preconditionFailure("a plaintext that fits is not sealed") }
        precondition(sealed.utf8.count == HapiEnvelope.length(forPlaintextByteCount: bytes.count), "the envelope has another length")
        precondition((try? HapiEnvelope.open(sealed, key: key)) == bytes, "an envelope does not open to its plaintext")
    }

    /// `HapiDeviceDecoder` as a phone runs it. The first byte picks the input's role: an APNs
    /// payload (JSON), an FCM data map (a JSON object of strings), or a plaintext sealed into a
    /// payload's `hapi.e` (so the payload decoder behind the decryption is reached).
    static let device = FuzzTarget("hapi-device") { input in
        guard let role = input.first else { return }
        let rest = Array(input.dropFirst())
        let message: HapiDeviceMessage
        switch role % 3 {
        case 0:
            guard let payload = (try? JSONValue.parse(rest))?.objectValue else { return }
            message = HapiDeviceDecoder.decode(apnsPayload: payload, key: key)
        case 1:
            guard let object = (try? JSONValue.parse(rest))?.objectValue else { return }
            var data: [String: String] = [:]
            for (name, value) in object.members { data[name] = value.stringValue }
            message = HapiDeviceDecoder.decode(fcmData: data, key: key)
        default:
            guard let envelope = try? HapiEnvelope.seal(rest, key: key, nonce: nonce) else { return }
            let payload: JSONObject = ["hapi": .object(["v": 1, "e": .string(envelope)])]
            message = HapiDeviceDecoder.decode(apnsPayload: payload, key: key)
            precondition(message != .drop(.authenticationFailed) && message != .drop(.invalidEnvelope),
                         "a sealed envelope is not opened")
        }
        // What a phone shows, written back as the sender would encrypt it, reads the same.
        if case .notification(let payload) = message {
            let canonical = payload.canonicalPlaintext
            precondition((try? HapiPayload(plaintext: canonical))?.canonicalPlaintext == canonical,
                         "a decoded payload does not survive its own canonical form")
        }
    }
}
