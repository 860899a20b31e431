import PushgateCore

/// One content-free alert for up to ``maxTokens`` tokens of one locale and APNs environment
/// (Android tokens join a batch of their locale whatever its environment: FCM has none).
public struct AlertBatch: Sendable, Equatable {
    /// The most tokens in one signed send.
    public static let maxTokens = 100

    public var tokens: [String]
    /// Those of ``tokens`` that are Android (FCM) tokens; the others are iOS (APNs) tokens. The
    /// relay sends both kinds in one signed send and routes each by the platform it was bound with.
    public var androidTokens: Set<String> = []
    public var title: String
    public var body: String
    public var badge: Int
    /// The tag: `collapseId` and APNs `thread-id`.
    public var tag: String
    /// `production` or `sandbox`.
    public var environment: String
    public var sessionId: String
    /// The event's id (``EventId``).
    public var eventId: String
    /// The prompt's request id, sent in `data` when it fits a data value.
    public var requestId: String?
    /// The event type's wire name (`permission`, `resolved`, …), `data.kind`; nil in outbox
    /// rows written before it was kept.
    public var kind: String?
    /// Level, relevance and category (docs/host.md, "Attention").
    public var attention: AlertAttention = .none
    /// Not empty: the batch is no alert but a background push telling the app to remove the
    /// notifications of these collapse ids (`PUSHGATE_DISMISS_MODE=background`, docs/host.md,
    /// "Dismissal"); only the tokens and the environment count then.
    public var dismissCollapseIds: [String] = []

    /// The longest `data` value the relay takes.
    static let maxDataValueBytes = 256
    /// The longest body the relay takes, in UTF-8 bytes.
    static let maxBodyBytes = 1_024

    /// `data` as sent (docs/app-integration.md, "Data"): identifiers only, nothing of the
    /// event's text — `sessionId`, `eventId`, `requestId`, `kind`, and `path`, the session's
    /// page relative to the hub the app paired with (never an absolute URL: `data` is unsigned).
    /// A request id or path too long for a data value is left out.
    public var data: [(key: String, value: String)] {
        var data = [("sessionId", sessionId), ("eventId", eventId)]
        if let requestId, !requestId.isEmpty, requestId.utf8.count <= Self.maxDataValueBytes { data.append(("requestId", requestId)) }
        if let kind { data.append(("kind", kind)) }
        let path = "/sessions/" + Self.pathSegment(sessionId)
        if path.utf8.count <= Self.maxDataValueBytes { data.append(("path", path)) }
        return data
    }

    /// The APNs payload of the alert; nil when it would exceed the 4 KiB APNs takes.
    var apnsPayload: [UInt8]? {
        APNsPayload.alert(title: title, body: body, badge: Int64(badge), threadId: tag, data: data, attention: attention)
    }

    /// The alert made to fit its APNs payload, JSON escapes included, within 4 KiB — the relay
    /// refuses a send whose payload would not, and APNs a push: the body is halved (whole
    /// characters, then `…`) while it does not fit (docs/host.md, "Delivery"). Without a body it
    /// always fits: each id is at most 256 bytes, 1 536 escaped.
    func fittingAPNsPayload() -> AlertBatch {
        var batch = self
        while batch.apnsPayload == nil, !batch.body.isEmpty {
            batch.body = HapiText.clipBytes(batch.body, batch.body.utf8.count / 2)
        }
        return batch
    }

    /// `text` percent-encoded as one path segment (RFC 3986 unreserved characters kept).
    static func pathSegment(_ text: String) -> String {
        var segment = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                segment.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                segment += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return segment
    }
}
