/// A Google service account key file (the JSON from the Cloud console), as used for FCM.
public struct ServiceAccount: Sendable {
    /// `project_id`: the Firebase project that FCM requests are addressed to.
    public let projectId: String
    /// `private_key_id`: the `kid` of signed assertions.
    public let privateKeyId: String
    /// `client_email`: the assertion's issuer.
    public let clientEmail: String
    /// `token_uri`: the OAuth 2.0 token endpoint, and the assertion's audience.
    public let tokenURI: String
    /// `private_key`: the RSA signing key.
    public let privateKey: RSAPrivateKey

    /// Parses the key file's bytes.
    public init(json bytes: [UInt8]) throws {
        guard let object = try JSONValue.parse(bytes).objectValue else {
            throw CryptoError(operation: "service account", message: "the file is not a JSON object")
        }
        try self.init(object: object)
    }

    /// Reads the members of a parsed key file; `type` must be `service_account`, and the
    /// members above must be non-empty strings. Other members are ignored.
    public init(object: JSONObject) throws {
        func string(_ key: String) throws -> String {
            guard let value = object[key]?.stringValue, !value.isEmpty else {
                throw CryptoError(operation: "service account", message: "missing or empty string member \(key)")
            }
            return value
        }
        guard try string("type") == "service_account" else {
            throw CryptoError(operation: "service account", message: "type is not service_account")
        }
        projectId = try string("project_id")
        privateKeyId = try string("private_key_id")
        clientEmail = try string("client_email")
        tokenURI = try string("token_uri")
        privateKey = try RSAPrivateKey(pkcs8PEM: string("private_key"))
    }
}
