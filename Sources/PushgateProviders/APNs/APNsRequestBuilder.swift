import PushgateHTTP

/// Turns a notification into the HTTP/2 request APNs expects.
///
/// - Important: `POST /3/device/<token>` with `authorization: bearer <jwt>`, `apns-topic`,
///   `apns-push-type`, `apns-priority`, `apns-expiration`, and `apns-collapse-id` only when given
///   (protocol/signed-relay.md §4, §5, §7).
enum APNsRequestBuilder {
    static func request(for notification: APNsNotification, origin: HTTP2Origin, authorization: String) -> HTTP2Request {
        var headers = [
            HTTP2Header("authorization", authorization),
            HTTP2Header("apns-topic", notification.topic),
            HTTP2Header("apns-push-type", notification.pushType.rawValue),
            HTTP2Header("apns-priority", String(notification.priority)),
            HTTP2Header("apns-expiration", String(notification.expiration)),
        ]
        if let collapseId = notification.collapseId { headers.append(HTTP2Header("apns-collapse-id", collapseId)) }
        return HTTP2Request(origin: origin, method: "POST", path: "/3/device/" + notification.deviceToken,
                            headers: headers, body: notification.payload)
    }
}
