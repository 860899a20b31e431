/// The `contentState` of a Live Activity push, validated strictly, items normalised.
///
/// - Important: protocol/signed-relay.md §5 — no other keys, a known status, finite numbers,
///   `title` ≤ 80 UTF-16 code units, `workingCount` ≥ 0, at most 4 items.
public struct LiveActivityContentState: Sendable, Equatable {
    /// The longest `title`, in UTF-16 code units; a longer one is refused (items are cut instead).
    public static let maxTitleLength = 80
    /// The most items a content state may carry.
    public static let maxItems = 4

    public let status: LiveActivityStatus
    public let eventVersion: Int64
    public let updatedAt: Double
    public let endedAt: Double?
    public let title: String?
    public let workingCount: Int64?
    public let items: [LiveActivityItem]?

    /// A content state from its parts; throws on the rules above.
    public init(status: LiveActivityStatus, eventVersion: Int64, updatedAt: Double, endedAt: Double? = nil,
                title: String? = nil, workingCount: Int64? = nil, items: [LiveActivityItem]? = nil) throws(WireFieldError) {
        let path = "contentState"
        guard updatedAt.isFinite else { throw WireFieldError(field: "\(path).updatedAt", problem: "must be a finite number") }
        if let endedAt, !endedAt.isFinite {
            throw WireFieldError(field: "\(path).endedAt", problem: "must be a finite number")
        }
        if let title, title.utf16.count > Self.maxTitleLength {
            throw WireFieldError(field: "\(path).title", problem: "must be at most 80 characters")
        }
        if let workingCount, workingCount < 0 {
            throw WireFieldError(field: "\(path).workingCount", problem: "must not be negative")
        }
        if let items, items.count > Self.maxItems {
            throw WireFieldError(field: "\(path).items", problem: "must hold at most 4 items")
        }
        self.status = status
        self.eventVersion = eventVersion
        self.updatedAt = updatedAt
        self.endedAt = endedAt
        self.title = title
        self.workingCount = workingCount
        self.items = items
    }

    /// Reads a request's `contentState` member.
    public init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "contentState")
        try reader.requireOnly(["status", "eventVersion", "updatedAt", "endedAt", "title", "workingCount", "items"])
        var items: [LiveActivityItem]?
        if let elements = try reader.optionalArray("items") {
            guard elements.count <= Self.maxItems else {
                throw WireFieldError(field: reader.name("items"), problem: "must hold at most 4 items")
            }
            var parsed: [LiveActivityItem] = []
            for (index, element) in elements.enumerated() {
                parsed.append(try LiveActivityItem(json: element, path: reader.name("items[\(index)]")))
            }
            items = parsed
        }
        try self.init(status: reader.status("status"), eventVersion: reader.integer("eventVersion"),
                      updatedAt: reader.number("updatedAt"), endedAt: reader.optionalNumber("endedAt"),
                      title: reader.optionalString("title"), workingCount: reader.optionalInteger("workingCount"),
                      items: items)
    }

    /// Whether the signed message carries the `.TITLE.WORKING.ITEMS` tail.
    var hasSummaryFields: Bool { title != nil || workingCount != nil || items != nil }

    /// The compact JSON of the normalised items (`[]` when absent), as signed: `/` not
    /// escaped, non-ASCII raw, numbers in JavaScript form.
    public var normalizedItemsJSON: String {
        JSONValue.array((items ?? []).map { .object($0.json) }).serialized()
    }

    /// The content state as sent to APNs (`aps.content-state`), items normalised.
    public var json: JSONObject {
        var object: JSONObject = [
            "status": .string(status.rawValue), "eventVersion": .integer(eventVersion), "updatedAt": .double(updatedAt),
        ]
        if let endedAt { object["endedAt"] = .double(endedAt) }
        if let title { object["title"] = .string(title) }
        if let workingCount { object["workingCount"] = .integer(workingCount) }
        if let items { object["items"] = .array(items.map { .object($0.json) }) }
        return object
    }
}
