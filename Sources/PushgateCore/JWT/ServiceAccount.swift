/// A Google service account key file (the JSON from the Cloud console), as used for FCM.
///
/// - Important: protocol/hapi-push.md §6 — `client_email`, `private_key` (an RSA PKCS#8 PEM) and
///   `project_id` are required and non-blank; `token_uri` and `private_key_id` are optional.
public struct ServiceAccount: Sendable {
    /// Google's OAuth 2.0 token endpoint, the `token_uri` of an account that names none.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    /// `project_id`: the Firebase project that FCM requests are addressed to.
    public let projectId: String
    /// `private_key_id`: the `kid` of signed assertions, when the file has one.
    public let privateKeyId: String?
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

    /// Reads the members of a parsed key file. Other members (`type`, `client_id`…) are ignored;
    /// an optional member that is blank counts as absent. Errors name the member, never its value.
    public init(object: JSONObject) throws {
        func optional(_ key: String) throws -> String? {
            guard let value = object[key], value != .null else { return nil }
            guard let text = value.stringValue else {
                throw CryptoError(operation: "service account", message: "member \(key) is not a string")
            }
            return text.allSatisfy(\.isWhitespace) ? nil : text
        }
        func required(_ key: String) throws -> String {
            guard let value = try optional(key) else {
                throw CryptoError(operation: "service account", message: "member \(key) is missing or blank")
            }
            return value
        }
        projectId = try required("project_id")
        clientEmail = try required("client_email")
        privateKeyId = try optional("private_key_id")
        tokenURI = try optional("token_uri") ?? Self.defaultTokenURI
        privateKey = try RSAPrivateKey(pkcs8PEM: required("private_key"))
    }
}
