import PushgateCore

/// The fake's `--script` files of the scenarios, made from the device tokens.
enum FakeScripts {
    /// Every token: 503 twice, then 200 (the relay's own retries get it through).
    static func serviceUnavailableTwice(_ tokens: [String]) -> JSONValue {
        let twice503: JSONValue = [["status": 503], ["status": 503], ["status": 200]]
        return .object(JSONObject(tokens.map { ($0, twice503) }))
    }

    /// Every `nth` token (the first, the `nth + 1`-th, …): 429 with `retry-after: seconds` once,
    /// then 200. The relay passes the 429 on; the host's outbox waits that long before its retry.
    static func tooManyRequestsOnce(retryAfter seconds: Int, everyNth nth: Int = 1) -> @Sendable ([String]) -> JSONValue {
        { tokens in
            let once429: JSONValue = [["status": 429, "retryAfter": .integer(Int64(seconds))], ["status": 200]]
            return .object(JSONObject(tokens.enumerated().filter { $0.offset % nth == 0 }.map { ($0.element, once429) }))
        }
    }
}
