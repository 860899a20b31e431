import PushgateCore

/// A relay's answer to a signed request: status, error code, and per-token results.
public struct RelayReply: Sendable, Equatable {
    /// One row of a send or live-activity answer.
    public struct TokenResult: Sendable, Equatable {
        /// The `reason` of a row whose token this host holds no binding of: register it again.
        public static let notBound = "not_bound"

        public var token: String
        public var ok: Bool
        /// The provider said the token is dead; the host should forget it.
        public var drop: Bool
        /// Why the row is not `ok`, a Pushgate extension: `not_bound`, `transient`, `refused` or
        /// `dead`. Kept as received, unknown values too (a later relay may add some): the host
        /// acts on ``notBound`` only and reads every other row by `ok` and `drop`. Nil when the
        /// relay sent none (OpenChamber relays, `ok` rows).
        public var reason: String?
        /// Whether the same push may be sent again (a Pushgate extension beside `reason`); nil
        /// when the relay sent none.
        public var retryable: Bool?
        /// The provider's `Retry-After` in seconds, on a throttled row (a Pushgate extension).
        public var retryAfterSeconds: Int?

        public init(token: String, ok: Bool, drop: Bool = false, reason: String? = nil, retryable: Bool? = nil,
                    retryAfterSeconds: Int? = nil) {
            self.token = token
            self.ok = ok
            self.drop = drop
            self.reason = reason
            self.retryable = retryable
            self.retryAfterSeconds = retryAfterSeconds
        }

        /// A row of the answer's `results`; nil when it is malformed: `token` not a string, `ok`
        /// not a boolean, or a `reason` member that is not a string. The token of a skipped
        /// row counts as not delivered.
        init?(json row: JSONValue) {
            guard let token = row["token"]?.stringValue, let ok = row["ok"]?.boolValue else { return nil }
            let reason = row["reason"]
            if let reason, reason.stringValue == nil { return nil }
            let retryAfter = row["retryAfter"].flatMap { value -> Int? in
                guard case .integer(let seconds) = value, (0...Int64(ProviderFailure.maxRetryAfterSeconds)).contains(seconds) else { return nil }
                return Int(seconds)
            }
            self.init(token: token, ok: ok, drop: row["drop"]?.boolValue ?? false, reason: reason?.stringValue,
                      retryable: row["retryable"]?.boolValue, retryAfterSeconds: retryAfter)
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
        results = (json?["results"]?.arrayValue ?? []).compactMap(TokenResult.init(json:))
    }
}
