/// Envelope v1: AES-256-GCM under the device's `pushKey`, standard base64 of
/// `nonce ‖ ciphertext ‖ tag`, AAD `hapi-push-v1`.
///
/// - Important: protocol/hapi-push.md §3 (layout, receiver rules 4–5) and §4 (the 3200-character cap).
public enum HapiEnvelope {
    /// The associated data, the 12 ASCII bytes `hapi-push-v1`.
    public static let aad = Array("hapi-push-v1".utf8)
    /// The longest envelope, in base64 characters.
    public static let maxLength = 3200
    /// Bytes added to the plaintext before base64: 12 of nonce and 16 of tag.
    public static let overhead = AESGCM.nonceSize + AESGCM.tagSize

    /// The envelope length for a plaintext of `byteCount` bytes: `4 × ceil((n + 28) / 3)`.
    public static func length(forPlaintextByteCount byteCount: Int) -> Int {
        4 * ((byteCount + overhead + 2) / 3)
    }

    /// Whether a plaintext of `byteCount` bytes stays within the cap (≤ 2372 bytes).
    public static func fits(plaintextByteCount byteCount: Int) -> Bool {
        length(forPlaintextByteCount: byteCount) <= maxLength
    }

    /// Encrypts `plaintext` for one device with a fresh random nonce.
    /// Throws `plaintextTooLarge` beyond the cap: choose the plaintext with ``HapiPlaintext``.
    public static func seal(_ plaintext: [UInt8], key: HapiPushKey) throws -> String {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(AESGCM.nonceSize))
    }

    /// `seal` with a chosen nonce, only so tests reproduce the vectors; production code never
    /// picks a nonce (protocol/hapi-push.md §3).
    static func seal(_ plaintext: [UInt8], key: HapiPushKey, nonce: [UInt8]) throws -> String {
        guard fits(plaintextByteCount: plaintext.count) else { throw HapiEnvelopeError(.plaintextTooLarge) }
        let sealed = try AESGCM.seal(key: key.bytes, nonce: nonce, plaintext: plaintext, aad: aad)
        return Base64.encode(nonce + sealed)
    }

    /// Opens an envelope as a device does: at most 3200 characters, a multiple of 4, strict
    /// standard base64, at least 28 bytes, then authenticated decryption.
    public static func open(_ envelope: String, key: HapiPushKey) throws(HapiEnvelopeError) -> [UInt8] {
        let length = envelope.utf8.count
        guard length <= maxLength else { throw HapiEnvelopeError(.tooLong) }
        guard length % 4 == 0, let bytes = try? Base64.decode(envelope) else { throw HapiEnvelopeError(.notBase64) }
        guard bytes.count >= overhead else { throw HapiEnvelopeError(.tooShort) }
        let nonce = Array(bytes[..<AESGCM.nonceSize])
        let sealed = Array(bytes[AESGCM.nonceSize...])
        guard let plaintext = try? AESGCM.open(key: key.bytes, nonce: nonce, sealed: sealed, aad: aad) else {
            throw HapiEnvelopeError(.authenticationFailed)
        }
        return plaintext
    }
}

/// Why an envelope was not made or not opened. Never carries plaintext or key material.
public struct HapiEnvelopeError: Error, Equatable, CustomStringConvertible {
    /// The rule that failed.
    public enum Reason: String, Sendable, Equatable {
        case tooLong = "envelope longer than 3200 characters"
        case notBase64 = "envelope is not standard padded base64"
        case tooShort = "envelope shorter than nonce and tag"
        case authenticationFailed = "authentication failed"
        case plaintextTooLarge = "plaintext larger than 2372 bytes"
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String { reason.rawValue }
}
