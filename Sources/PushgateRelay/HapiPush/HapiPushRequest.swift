import PushgateCore

/// A validated `POST /v1/push` body: platform, normalized token, envelope, collapse id, priority,
/// interruption level.
///
/// - Important: docs/relay.md "`POST /v1/push`: the hapi route", checks in order: a JSON object;
///   `platform` `ios` or `android`; `token` 1–4096 printable ASCII (iOS: even-length hex of
///   16–512, lowercased); `envelope` a non-empty string, over 3200 characters → 413 before its
///   shape is checked (a multiple of 4 of `[A-Za-z0-9+/]` with up to two `=`); `collapseId` a
///   string without CR, LF or NUL; `priority` 5 or 10 (default 10); **extension** `interruptionLevel` passive, active or
///   time-sensitive. The collapse id is truncated again to 64 bytes.
struct HapiPushRequest: Sendable, Equatable {
    enum Platform: String, Sendable {
        case ios, android
    }

    static let maxTokenLength = 4096
    /// The extension field, as `/healthz` announces it.
    static let interruptionLevelField = "interruptionLevel"

    let platform: Platform
    /// The token as sent to the provider: lowercased for iOS, unchanged for Android.
    let token: String
    let envelope: String
    /// The collapse id after truncation to 64 bytes; `nil` when absent or empty.
    let collapseId: String?
    let priority: Int
    /// `aps.interruption-level` of the iOS alert; `nil` when absent.
    let interruptionLevel: AlertAttention.Level?

    init(body: [UInt8]) throws(HapiPushError) {
        guard let object = (try? JSONValue.parse(body))?.objectValue else {
            throw .badRequest("the body must be a JSON object")
        }
        guard let platform = object["platform"]?.stringValue.flatMap(Platform.init(rawValue:)) else {
            throw .badRequest("platform must be ios or android")
        }
        guard let token = object["token"]?.stringValue, (1...Self.maxTokenLength).contains(token.utf8.count),
              token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .badRequest("token must be 1 to 4096 printable ASCII characters")
        }
        if platform == .ios {
            guard (16...512).contains(token.utf8.count), token.utf8.count % 2 == 0, token.utf8.allSatisfy(Hex.isDigit) else {
                throw .badRequest("an ios token must be hex of even length, 16 to 512 digits")
            }
        }
        guard let envelope = object["envelope"]?.stringValue, !envelope.isEmpty else {
            throw .badRequest("envelope must be a non-empty string")
        }
        guard envelope.utf16.count <= HapiEnvelope.maxLength else {
            throw .tooLarge("envelope longer than \(HapiEnvelope.maxLength) characters")
        }
        guard Self.isPaddedBase64(envelope) else {
            throw .badRequest("envelope must be standard base64 whose length is a multiple of 4")
        }
        var collapseId: String?
        if let value = object["collapseId"] {
            // It becomes the `apns-collapse-id` header, whose value cannot hold these.
            guard let text = value.stringValue, !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .badRequest("collapseId must be a string without CR, LF or NUL")
            }
            collapseId = HapiCollapseId.truncate(text)
        }
        var priority = 10
        if let value = object["priority"] {
            guard let number = value.doubleValue, number == 5 || number == 10 else { throw .badRequest("priority must be 5 or 10") }
            priority = Int(number)
        }
        var interruptionLevel: AlertAttention.Level?
        if let value = object[Self.interruptionLevelField] {
            guard let level = value.stringValue.flatMap(AlertAttention.Level.init(rawValue:)) else {
                throw .badRequest("interruptionLevel must be passive, active or time-sensitive")
            }
            interruptionLevel = level
        }
        self.platform = platform
        self.token = platform == .ios ? token.lowercased() : token
        self.envelope = envelope
        self.collapseId = collapseId
        self.priority = priority
        self.interruptionLevel = interruptionLevel
    }

    /// `^[A-Za-z0-9+/]+={0,2}$` with a length that is a multiple of 4.
    private static func isPaddedBase64(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2, padding < bytes.count else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }
}

/// A `POST /v1/push` answer other than 200: its status and `code`, and an optional message
/// that names the broken rule.
///
/// - Important: protocol/hapi-push.md §7 relay side — errors are `{"ok":false,"code":"<code>"}` with an
///   optional `message` that never echoes the token or the envelope.
struct HapiPushError: Error, Equatable {
    let status: Int
    let code: String
    var message: String?

    static func badRequest(_ message: String) -> HapiPushError { HapiPushError(status: 400, code: "bad_request", message: message) }
    static let methodNotAllowed = HapiPushError(status: 405, code: "method_not_allowed", message: "use POST")
    static let unregistered = HapiPushError(status: 410, code: "unregistered")
    static func tooLarge(_ message: String) -> HapiPushError { HapiPushError(status: 413, code: "too_large", message: message) }
    static let rateLimited = HapiPushError(status: 429, code: "rate_limited")
    static let unsupportedPlatform = HapiPushError(status: 501, code: "unsupported_platform",
                                                   message: "this relay has no provider for the platform")
    static let upstream = HapiPushError(status: 502, code: "upstream")

    var response: RelayResponse {
        var body = JSONObject([("ok", false), ("code", .string(code))])
        if let message { body["message"] = .string(message) }
        var response = RelayResponse.json(status, .object(body))
        response.errorCode = code
        return response
    }
}
