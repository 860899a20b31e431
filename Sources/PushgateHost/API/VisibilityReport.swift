import PushgateCore

/// The body of `POST /api/push/visibility`: `{visible, sessionId?, client?}`. Without
/// `client:"desktop"` it is the app's beacon (`visible:true` clears the badge); with it, a
/// desktop saying whether it shows `sessionId` (required then; docs/host.md, "Desktop presence").
/// Other members are ignored, as they always were.
struct VisibilityReport: Sendable, Equatable {
    enum Client: String, Sendable {
        case desktop, phone
    }

    var visible: Bool
    var sessionId: String?
    var client: Client?

    init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        guard case .bool(let visible)? = reader.object["visible"] else {
            throw WireFieldError(field: "visible", problem: "must be a boolean")
        }
        self.visible = visible
        sessionId = try reader.optionalString("sessionId")
        // An event's session id rule, so every session an event can name can be reported.
        if let sessionId, sessionId.isEmpty || sessionId.utf8.count > 256 {
            throw WireFieldError(field: "sessionId", problem: "must be 1 to 256 bytes")
        }
        if let text = try reader.optionalString("client") {
            guard let client = Client(rawValue: text) else { throw WireFieldError(field: "client", problem: "must be desktop or phone") }
            self.client = client
        }
        if client == .desktop, sessionId == nil {
            throw WireFieldError(field: "sessionId", problem: "is required with client desktop")
        }
    }
}
