import PushgateCore

/// The body of `POST /api/push/apns-token`.
struct TokenRequest {
    var token: AlertToken

    init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["token", "platform", "locale", "environment", "client"])
        let token = try Self.deviceToken(reader)
        let platform = try reader.optionalString("platform") ?? "ios"
        guard platform == "ios" else { throw WireFieldError(field: "platform", problem: "must be ios") }
        let environment = try reader.optionalString("environment") ?? "production"
        guard environment == "production" || environment == "sandbox" else {
            throw WireFieldError(field: "environment", problem: "must be production or sandbox")
        }
        let locale = try reader.optionalString("locale")
        if let locale, locale.utf8.count > 64 { throw WireFieldError(field: "locale", problem: "must be at most 64 bytes") }
        let client = try reader.optionalString("client")
        if let client, client.utf8.count > 256 { throw WireFieldError(field: "client", problem: "must be at most 256 bytes") }
        self.token = AlertToken(token: token, client: client, platform: platform, locale: locale, environment: environment)
    }

    /// `token`: even-length hex, 64 to 200 chars (the relay's rule).
    static func deviceToken(_ reader: FieldReader) throws(WireFieldError) -> String {
        let token = try reader.string("token")
        let hex = token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
        guard hex, (64...200).contains(token.utf8.count), token.utf8.count % 2 == 0 else {
            throw WireFieldError(field: "token", problem: "must be 64 to 200 hex characters")
        }
        return token
    }
}
