import PushgateCore
import PushgateProviders

/// Device-token and environment rules shared by every relay route.
enum DeviceToken {
    /// An even number of hex characters from 64 to 200, case preserved.
    ///
    /// - Important: protocol/signed-relay.md §3 (Pushgate accepts longer tokens than OpenChamber's 64).
    static func isValid(_ token: String) -> Bool {
        let utf8 = token.utf8
        guard (64...200).contains(utf8.count), utf8.count % 2 == 0 else { return false }
        return utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// An FCM registration token on the signed routes: 32 to 512 characters of `[A-Za-z0-9_:.-]`,
    /// stored as given (docs/relay.md "Android tokens"). Every APNs token is one too.
    static func isValidFCM(_ token: String) -> Bool {
        (32...512).contains(token.utf8.count) && token.utf8.allSatisfy(isFCMTokenByte)
    }

    /// `[A-Za-z0-9_:.-]`, the alphabet of FCM registration tokens (the gateway's too).
    static func isFCMTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// The `tokens` array of send and live-activity: 1 to 100 valid tokens, duplicates allowed;
    /// `android` admits FCM tokens (a `send`, whose tokens may be bound as either platform).
    static func list(_ fields: FieldReader, android: Bool = false) throws(RelayError) -> [String] {
        let values = try fields.relayArray("tokens")
        guard (1...100).contains(values.count) else { throw .invalidRequest }
        var tokens: [String] = []
        tokens.reserveCapacity(values.count)
        for value in values {
            guard let token = value.stringValue, android ? isValidFCM(token) : isValid(token) else { throw .invalidRequest }
            tokens.append(token)
        }
        return tokens
    }

    /// The distinct tokens in first-seen order (one result row each).
    static func distinct(_ tokens: [String]) -> [String] {
        var seen = Set<String>()
        return tokens.filter { seen.insert($0).inserted }
    }
}

extension APNsEnvironment {
    /// `env` of a request; missing → production (protocol/signed-relay.md §4).
    static func from(_ fields: FieldReader) throws(RelayError) -> APNsEnvironment {
        guard let raw = try fields.relay({ try $0.optionalString("env") }) else { return .production }
        guard let env = APNsEnvironment(rawValue: raw) else { throw .invalidRequest }
        return env
    }
}
