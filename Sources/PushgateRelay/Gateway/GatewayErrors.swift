/// The gateway's error codes, as relay errors so they answer through the same response path.
///
/// - Important: protocol/gateway.md §1.1 — bodies are exactly `{"error":"<code>"}`; 500 never carries details.
extension RelayError {
    static let invalidChallenge = RelayError(status: 401, code: "invalid_challenge")
    static let invalidProof = RelayError(status: 401, code: "invalid_proof")
    static let invalidToken = RelayError(status: 401, code: "invalid_token")
    static let sessionExpired = RelayError(status: 401, code: "session_expired")
    static let notFound = RelayError(status: 404, code: "not_found")
    static let tooManyDevices = RelayError(status: 409, code: "too_many_devices")
    static let requestTooLarge = RelayError(status: 413, code: "request_too_large")
    /// A new host while the gateway holds `MAX_HOSTS` hosts (Pushgate extension, docs/gateway.md "Growth").
    static let hostLimit = RelayError(status: 503, code: "host_limit")
}
