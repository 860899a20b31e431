import PushgateCommandLine
import PushgateCore

/// `pushgate envelope seal|open`: hapi envelope v1 (protocol/hapi-push.md §3).
enum EnvelopeCommand {
    static let usage = """
        pushgate envelope seal --key BASE64 --payload JSON
        pushgate envelope open --key BASE64 --envelope BASE64
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        switch arguments.nextPositional() {
        case "seal":
            let keyText = try arguments.requiredOption("key")
            let payloadText = try arguments.requiredOption("payload")
            try arguments.finish()
            let key = try HapiPushKey(base64: keyText)
            let payload: JSONValue
            do { payload = try JSONValue.parse(payloadText) } catch { throw ToolFailure("--payload: \(error)") }
            // Refuse what a device would drop (receiver rule 6); seal the object as given.
            do { _ = try HapiPayload(plaintext: payload.serializedBytes()) } catch { throw ToolFailure("--payload: \(error)") }
            print(try HapiEnvelope.seal(payload.canonicalBytes(), key: key))
        case "open":
            let keyText = try arguments.requiredOption("key")
            let envelope = try arguments.requiredOption("envelope")
            try arguments.finish()
            let plaintext = try HapiEnvelope.open(envelope, key: HapiPushKey(base64: keyText))
            guard let text = String(validating: plaintext, as: UTF8.self) else {
                throw ToolFailure("plaintext is not UTF-8")
            }
            print(text)
        default:
            throw UsageError("expected seal or open")
        }
        return 0
    }
}
