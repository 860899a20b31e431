import Foundation
import PushgateCore

/// Reads vectors from the package's Fixtures/ directory, relative to this file.
enum TestFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func object(_ relativePath: String) throws -> JSONObject {
        let data = try Data(contentsOf: root.appendingPathComponent(relativePath))
        guard let object = try JSONValue.parse(Array(data)).objectValue else { throw CocoaError(.fileReadCorruptFile) }
        return object
    }

    /// The ES256 provider-token vector: `.p8` PEM, key id, team id, iat and a token signed with them.
    struct ProviderToken {
        let p8PEM: String
        let keyId: String
        let teamId: String
        let issuedAt: Int64
        let validJWT: String
    }

    static func providerToken() throws -> ProviderToken {
        let vector = try object("vectors/es256-jwt.json")
        return ProviderToken(
            p8PEM: vector["p8Pem"]!.stringValue!, keyId: vector["keyId"]!.stringValue!, teamId: vector["teamId"]!.stringValue!,
            issuedAt: vector["iat"]!.int64Value!, validJWT: vector["validJwt"]!.stringValue!)
    }
}
