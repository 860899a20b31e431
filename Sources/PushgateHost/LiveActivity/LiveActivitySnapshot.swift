import PushgateCore

/// The rows a Live Activity token shows (its snapshot), to and from JSON.
///
/// - Important: protocol/host-api.md §6 — each token keeps `{sessionId, title, status, startedAt, endedAt?}`
///   rows, at most 4; they are stored and sent in the relay's normalised item form
///   (protocol/signed-relay.md §5: `sessionID`, a title cut to 80 UTF-16 code units).
enum LiveActivitySnapshot {
    /// The most rows a snapshot holds.
    static let maxRows = LiveActivityContentState.maxItems

    /// Reads the `items` a phone sent: at most 4 rows, each `{sessionID|sessionId, title?, status,
    /// startedAt, endedAt?}`, nothing else.
    static func rows(from value: JSONValue, field: String) throws(WireFieldError) -> [LiveActivityItem] {
        guard let elements = value.arrayValue else { throw WireFieldError(field: field, problem: "must be an array") }
        guard elements.count <= maxRows else { throw WireFieldError(field: field, problem: "must hold at most 4 items") }
        var rows: [LiveActivityItem] = []
        for (index, element) in elements.enumerated() {
            rows.append(try row(from: element, path: "\(field)[\(index)]"))
        }
        return rows
    }

    /// Reads stored rows (written by this host or imported from OpenChamber), skipping rows that
    /// break the rules instead of losing the token.
    static func storedRows(_ text: String) -> [LiveActivityItem] {
        guard let elements = (try? JSONValue.parse(text))?.arrayValue else { return [] }
        return elements.compactMap { try? row(from: $0, path: "snapshot") }
    }

    /// The stored form: a compact JSON array of normalised items.
    static func json(_ rows: [LiveActivityItem]) -> String {
        JSONValue.array(rows.map { .object($0.json) }).serialized()
    }

    private static func row(from value: JSONValue, path: String) throws(WireFieldError) -> LiveActivityItem {
        let reader = try FieldReader(value, path: path)
        try reader.requireOnly(["sessionID", "sessionId", "title", "status", "startedAt", "endedAt"])
        if reader.has("sessionID") && reader.has("sessionId") {
            throw WireFieldError(field: reader.name("sessionId"), problem: "must not appear together with sessionID")
        }
        let sessionID = try reader.has("sessionID") ? reader.string("sessionID") : reader.string("sessionId")
        return try LiveActivityItem(sessionID: sessionID, title: reader.optionalString("title") ?? "", status: reader.status("status"),
                                    startedAt: reader.number("startedAt"), endedAt: reader.optionalNumber("endedAt"))
    }
}
