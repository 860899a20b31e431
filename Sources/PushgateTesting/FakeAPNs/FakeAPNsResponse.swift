import PushgateCore

/// The answer the fake gives one stream: status, `apns-id`, a scripted `retry-after`, and for
/// errors a `{"reason":…}` body (410 adds `"timestamp"`, milliseconds since the epoch, as APNs does).
struct FakeAPNsResponse {
    let status: Int
    let reason: APNsReason?
    let apnsId: String
    let timestampMilliseconds: Int64
    let retryAfterSeconds: Int?

    var headers: [(name: String, value: String)] {
        var headers = [(name: "apns-id", value: apnsId)]
        if reason != nil { headers.append(("content-type", "application/json")) }
        if let retryAfterSeconds { headers.append(("retry-after", String(retryAfterSeconds))) }
        return headers
    }

    var body: [UInt8] {
        guard let reason else { return [] }
        var object = JSONObject([("reason", .string(reason.rawValue))])
        if status == 410 { object["timestamp"] = .integer(timestampMilliseconds) }
        return JSONValue.object(object).serializedBytes()
    }

    /// The answer as the server sends it.
    var http: FakeHTTP2Response { FakeHTTP2Response(status: status, headers: headers, body: body) }
}
