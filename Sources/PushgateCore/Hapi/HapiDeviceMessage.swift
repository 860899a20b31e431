/// What a device makes of one received push on the encrypted path.
///
/// - Important: protocol/hapi-push.md §3 "Decryption on the device" — a message with the marker is
///   handled only as an encrypted one: either its decrypted payload is shown, or nothing
///   derived from it is (no partial plaintext, no fallback to other keys, no error text).
public enum HapiDeviceMessage: Sendable, Equatable {
    /// No encrypted marker: not a message of this path; the app treats it as it would otherwise.
    case notEncrypted
    /// Decrypted and valid: show the payload's title and body.
    case notification(HapiPayload)
    /// Drop it. On iOS the system may still show the generic `HAPI` / `New activity` alert.
    case drop(HapiDropReason)
}

/// Why an encrypted message was dropped: the receiver rule (protocol/hapi-push.md §3) it failed.
public enum HapiDropReason: String, Sendable, Equatable {
    /// Rule 2: `hapi.v` is not the number 1, or `hapi_v` is not the string `"1"` (or the
    /// marker is not shaped as one).
    case unsupportedVersion = "unsupported envelope version"
    /// Rule 3: the device holds no `pushKey` for this host.
    case missingKey = "no push key"
    /// Rule 4: the envelope is not a string of at most 3200 characters, a multiple of 4, of
    /// standard base64 decoding to at least 28 bytes.
    case invalidEnvelope = "invalid envelope"
    /// Rule 5: AES-GCM authentication failed (wrong key, tampered envelope).
    case authenticationFailed = "authentication failed"
    /// Rule 6: the plaintext is not an object of strings with `type`, `sessionId`, `title`,
    /// `body` and `contractVersion`.
    case invalidPayload = "invalid payload"
}
