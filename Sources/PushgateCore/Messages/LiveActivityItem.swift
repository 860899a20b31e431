/// One session row inside a Live Activity's content state, in its normalised form.
///
/// - Important: protocol/signed-relay.md §5 — the relay normalises items before verifying:
///   `sessionId` becomes `sessionID`, a missing title `""`, titles are cut to 80 UTF-16 code
///   units, and the JSON keys are `sessionID, title, status, startedAt, endedAt?` in that order.
public struct LiveActivityItem: Sendable, Equatable {
    /// The longest item title kept, in UTF-16 code units; longer titles are cut.
    public static let maxTitleLength = 80
    /// The allowed session id length, in UTF-16 code units.
    public static let sessionIDLength = 1...128

    public let sessionID: String
    /// The title, already cut to ``maxTitleLength``.
    public let title: String
    public let status: LiveActivityStatus
    public let startedAt: Double
    public let endedAt: Double?

    /// An item; the title is cut to ``maxTitleLength``.
    /// Throws when the session id length or a number breaks §5.
    public init(sessionID: String, title: String = "", status: LiveActivityStatus,
                startedAt: Double, endedAt: Double? = nil) throws(WireFieldError) {
        try self.init(sessionID: sessionID, title: title, status: status, startedAt: startedAt,
                      endedAt: endedAt, path: "item")
    }

    /// Reads one element of a request's `items` array, located by `path` for errors.
    /// Members other than the five normalised ones are dropped, as normalisation does.
    init(json: JSONValue, path: String) throws(WireFieldError) {
        let reader = try FieldReader(json, path: path)
        if reader.has("sessionID") && reader.has("sessionId") {
            throw WireFieldError(field: reader.name("sessionId"), problem: "must not appear together with sessionID")
        }
        let sessionID = try reader.has("sessionID") ? reader.string("sessionID") : reader.string("sessionId")
        try self.init(sessionID: sessionID, title: reader.optionalString("title") ?? "",
                      status: reader.status("status"), startedAt: reader.number("startedAt"),
                      endedAt: reader.optionalNumber("endedAt"), path: path)
    }

    private init(sessionID: String, title: String, status: LiveActivityStatus, startedAt: Double,
                 endedAt: Double?, path: String) throws(WireFieldError) {
        guard Self.sessionIDLength.contains(sessionID.utf16.count) else {
            throw WireFieldError(field: "\(path).sessionID", problem: "must be 1 to 128 characters")
        }
        guard startedAt.isFinite else { throw WireFieldError(field: "\(path).startedAt", problem: "must be a finite number") }
        if let endedAt, !endedAt.isFinite {
            throw WireFieldError(field: "\(path).endedAt", problem: "must be a finite number")
        }
        self.sessionID = sessionID
        self.title = title.prefix(utf16Count: Self.maxTitleLength)
        self.status = status
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// The normalised JSON object, keys in the signed order.
    public var json: JSONObject {
        var object: JSONObject = [
            "sessionID": .string(sessionID), "title": .string(title),
            "status": .string(status.rawValue), "startedAt": .double(startedAt),
        ]
        if let endedAt { object["endedAt"] = .double(endedAt) }
        return object
    }
}
