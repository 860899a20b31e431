/// Builders for the JSON bodies sent to APNs.
///
/// - Important: shapes from protocol/signed-relay.md §4 (alert) and §5 (Live Activity); a body over
///   ``maxBytes`` is refused before anything is sent.
public enum APNsPayload {
    /// The largest payload APNs accepts for alert and Live Activity pushes.
    public static let maxBytes = 4_096

    /// `{"aps":{"alert":{"title","body"?},"sound":"default","mutable-content":1,"badge"?,"thread-id"?,
    /// "interruption-level"?,"relevance-score"?,"category"?}, …data}` with `data` entries at the
    /// top level; `nil` when it would exceed ``maxBytes``. A `passive` alert plays no sound.
    public static func alert(title: String, body: String?, badge: Int64?, threadId: String?,
                             data: [(key: String, value: String)], attention: AlertAttention = .none) -> [UInt8]? {
        var alert = JSONObject([("title", .string(title))])
        if let body { alert["body"] = .string(body) }
        var aps = JSONObject([("alert", .object(alert))])
        if attention.level != .passive { aps["sound"] = "default" }
        aps["mutable-content"] = 1
        if let badge { aps["badge"] = .integer(badge) }
        if let threadId { aps["thread-id"] = .string(threadId) }
        for (key, value) in attention.apsMembers { aps[key] = value }
        var root = JSONObject([("aps", .object(aps))])
        for (key, value) in data where key != "aps" { root[key] = .string(value) }
        return bounded(JSONValue.object(root).serializedBytes())
    }

    /// `{"aps":{"timestamp","event","content-state","dismissal-date" (end) | "stale-date" (update,
    /// start)}}`: no alert and no session id, except that a start adds its attributes type,
    /// attributes and alert (``LiveActivityStart/apsMembers``); `nil` when it would exceed ``maxBytes``.
    public static func liveActivity(timestamp: Int64, event: String, contentState: JSONObject,
                                    dismissalDate: Int64?, staleDate: Int64?, start: LiveActivityStart? = nil) -> [UInt8]? {
        var aps = JSONObject([("timestamp", .integer(timestamp)), ("event", .string(event)),
                              ("content-state", .object(contentState))])
        if event == "end", let dismissalDate { aps["dismissal-date"] = .integer(dismissalDate) }
        if event != "end", let staleDate { aps["stale-date"] = .integer(staleDate) }
        if event == "start", let start { for (key, value) in start.apsMembers { aps[key] = value } }
        return bounded(JSONValue.object(JSONObject([("aps", .object(aps))])).serializedBytes())
    }

    /// The most collapse ids one dismissal lists: 32 ids of 64 bytes fit the 4 KiB payload.
    public static let maxDismissedCollapseIds = 32

    /// A collapse id a dismissal can list: 1–64 bytes, as an alert's, and no CR, LF or NUL — the
    /// app matches it against the identifiers of delivered notifications, which never hold them.
    public static func isDismissible(collapseId id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && !id.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// A background push that tells the app which delivered notifications to remove:
    /// `{"aps":{"content-available":1},"dismiss":{"collapseIds":[…]}}` (docs/app-integration.md,
    /// "Dismissal"); `nil` when it would exceed ``maxBytes``.
    public static func dismissal(collapseIds: [String]) -> [UInt8]? {
        let root = JSONObject([
            ("aps", .object(JSONObject([("content-available", 1)]))),
            ("dismiss", .object(JSONObject([("collapseIds", .array(collapseIds.map(JSONValue.string)))]))),
        ])
        return bounded(JSONValue.object(root).serializedBytes())
    }

    private static func bounded(_ bytes: [UInt8]) -> [UInt8]? { bytes.count <= maxBytes ? bytes : nil }
}
