import PushgateCore

/// The body of `POST /api/push/apns-token`, and the token of its `DELETE`.
struct TokenRequest {
    var token: AlertToken

    init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        try reader.requireOnly(["token", "platform", "locale", "environment", "client"])
        let platform = try Self.platform(reader)
        let token = try Self.deviceToken(reader, platform: platform)
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

    /// `platform`: `ios` (the default) or `android`. `inferringFrom`: a token to tell it by when
    /// the body names none (a `DELETE`): an APNs-form token is `ios`, any other `android`.
    static func platform(_ reader: FieldReader, inferringFrom token: String? = nil) throws(WireFieldError) -> AlertToken.Platform {
        guard let text = try reader.optionalString("platform") else { return token.map { isAPNsToken($0) ? .ios : .android } ?? .ios }
        guard let platform = AlertToken.Platform(rawValue: text) else { throw WireFieldError(field: "platform", problem: "must be ios or android") }
        return platform
    }

    /// `token` by its platform's rule, the relay's: iOS even-length hex of 64 to 200
    /// characters, Android (FCM) 32 to 512 of `A-Z a-z 0-9 _ : . -`.
    static func deviceToken(_ reader: FieldReader, platform: AlertToken.Platform = .ios) throws(WireFieldError) -> String {
        let token = try reader.string("token")
        switch platform {
        case .ios:
            guard isAPNsToken(token) else { throw WireFieldError(field: "token", problem: "must be 64 to 200 hex characters") }
        case .android:
            guard isFCMToken(token) else {
                throw WireFieldError(field: "token", problem: "must be 32 to 512 characters of A-Z a-z 0-9 _ : . -")
            }
        }
        return token
    }

    private static func isAPNsToken(_ token: String) -> Bool {
        let hex = token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
        return hex && (64...200).contains(token.utf8.count) && token.utf8.count % 2 == 0
    }

    private static func isFCMToken(_ token: String) -> Bool {
        (32...512).contains(token.utf8.count) && token.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F || byte == 0x3A || byte == 0x2E || byte == 0x2D
        }
    }
}
