import PushgateCore

/// A relay's answer to a signed request: status, error code, and per-token results.
public struct RelayReply: Sendable, Equatable {
    /// One row of a send or live-activity answer.
    public struct TokenResult: Sendable, Equatable {
        public var token: String
        public var ok: Bool
        /// The provider said the token is dead; the host should forget it.
        public var drop: Bool

        public init(token: String, ok: Bool, drop: Bool = false) {
            self.token = token
            self.ok = ok
            self.drop = drop
        }
    }

    public var status: Int
    /// The `error` member of a refusal.
    public var errorCode: String?
    /// The `results` rows of a send or live-activity answer.
    public var results: [TokenResult]
    /// The answer's body as received.
    public var body: [UInt8]

    /// Whether the relay answered 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
        let json = try? JSONValue.parse(body)
        errorCode = json?["error"]?.stringValue
        results = (json?["results"]?.arrayValue ?? []).compactMap { row in
            guard let token = row["token"]?.stringValue, let ok = row["ok"]?.boolValue else { return nil }
            return TokenResult(token: token, ok: ok, drop: row["drop"]?.boolValue ?? false)
        }
    }
}
