import PushgateCommandLine
import PushgateCore

/// `pushgate-dev bench core`: the per-request costs of PushgateCore on one thread — P-256
/// verification and signing, hapi envelope sealing, canonical JSON.
enum BenchCoreSuite {
    /// Measures each figure in turn and hands it to `report` as soon as it is known.
    static func run(_ meter: BenchMeter, report: (BenchResult) -> Void) throws {
        let key = P256PrivateKey()
        let message = Array(SignedMessage.send(ts: 1_760_000_000_000, tokens: [String(repeating: "a1b2c3d4", count: 8)],
                                               title: "Build finished on relay-01").utf8)
        try report(verification(key: key, message: message, meter: meter))
        try report(tableVerification(key: key, message: message, meter: meter))
        try report(signing(key: key, message: message, meter: meter))

        let payload = samplePayload(plaintextBytes: 300)
        try report(sealing(payload: payload, meter: meter))
        try report(canonicalJSON(payload: payload, meter: meter))
    }

    /// Verifies one fixed valid signature with a cached public key, as the relay does once a
    /// host's key is in its binding cache.
    private static func verification(key: P256PrivateKey, message: [UInt8], meter: BenchMeter) throws -> BenchResult {
        let publicKey = try P256PublicKey(jwk: key.publicKey.jwk)
        let signature = try key.sign(message)
        guard publicKey.verify(signature: signature, message: message) else { throw ToolFailure("fresh signature does not verify") }
        return try meter.measure("core.p256_verify", unit: "verifications/s") {
            guard publicKey.verify(signature: signature, message: message) else { throw ToolFailure("verification failed mid-run") }
            return 1
        }
    }

    /// The same with the key's own precomputed table, as the relay verifies a busy host's
    /// requests (P256TableBudget).
    private static func tableVerification(key: P256PrivateKey, message: [UInt8], meter: BenchMeter) throws -> BenchResult {
        let publicKey = try P256PublicKey(jwk: key.publicKey.jwk, tables: P256TableBudget(maxTables: 1, threshold: .max))
        guard publicKey.prepareTable() else { throw ToolFailure("the key's table could not be built") }
        let signature = try key.sign(message)
        return try meter.measure("core.p256_verify_table", unit: "verifications/s") {
            guard publicKey.verify(signature: signature, message: message) else { throw ToolFailure("verification failed mid-run") }
            return 1
        }
    }

    private static func signing(key: P256PrivateKey, message: [UInt8], meter: BenchMeter) throws -> BenchResult {
        try meter.measure("core.p256_sign", unit: "signatures/s") { try key.sign(message).count }
    }

    /// Seals the already-chosen plaintext for one device, the host's per-device step.
    private static func sealing(payload: HapiPayload, meter: BenchMeter) throws -> BenchResult {
        let pushKey = HapiPushKey.random()
        let plaintext = payload.canonicalPlaintext
        guard try HapiEnvelope.open(HapiEnvelope.seal(plaintext, key: pushKey), key: pushKey) == plaintext else {
            throw ToolFailure("envelope does not open to its plaintext")
        }
        return try meter.measure("core.hapi_seal", unit: "seals/s") { try HapiEnvelope.seal(plaintext, key: pushKey).utf8.count }
    }

    /// Canonical JSON (protocol/hapi-push.md §2) of the payload object, built once.
    private static func canonicalJSON(payload: HapiPayload, meter: BenchMeter) throws -> BenchResult {
        let value = JSONValue.object(payload.json)
        guard value.canonicalBytes() == payload.canonicalPlaintext else { throw ToolFailure("canonical JSON differs from the payload's plaintext") }
        return meter.measure("core.canonical_json", unit: "payloads/s") { value.canonicalBytes().count }
    }

    /// A `ready` payload whose canonical plaintext is exactly `plaintextBytes` long, the body
    /// filled with ASCII text to reach it.
    static func samplePayload(plaintextBytes: Int) -> HapiPayload {
        let sessionId = "3f2c9a4e-8b1d-4c7e-9f60-2a5d7e1b4c93"
        var payload = HapiPayload(type: .ready, sessionId: sessionId, sessionName: "refactor relay limits",
                                  url: "/sessions/\(sessionId)", title: "Ready for input", body: "", severity: .info)
        let missing = plaintextBytes - payload.canonicalPlaintext.count
        precondition(missing > 0, "the sample payload is already larger than \(plaintextBytes) bytes")
        let sentence = "The agent finished the task and is waiting for your next instruction. "
        payload.body = String(String(repeating: sentence, count: missing / sentence.utf8.count + 1).prefix(missing))
        return payload
    }
}
