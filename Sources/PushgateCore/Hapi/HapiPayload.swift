/// The data payload (contract v1) of a native notification on the encrypted path: one flat
/// object whose values are all strings.
///
/// - Important: protocol/hapi-push.md §1 — `requestId`, `severity` and `notifySummary` are left out
///   when nil or empty; `sessionName` and `url` are written whenever set, even empty;
///   `contractVersion` is the string `"1"`.
public struct HapiPayload: Sendable, Equatable {
    /// The contract version this kit writes.
    public static let currentContractVersion = "1"

    public var type: HapiNotificationType
    public var sessionId: String
    public var sessionName: String?
    /// The deep link, `/sessions/<sessionId>`.
    public var url: String?
    public var requestId: String?
    public var title: String
    public var body: String
    public var severity: HapiSeverity?
    /// JSON text of the agent summary (`ready` only); kept as a string, never re-sorted.
    public var notifySummary: String?
    public var contractVersion: String

    public init(type: HapiNotificationType, sessionId: String, sessionName: String? = nil, url: String? = nil,
                requestId: String? = nil, title: String, body: String, severity: HapiSeverity? = nil,
                notifySummary: String? = nil, contractVersion: String = currentContractVersion) {
        self.type = type
        self.sessionId = sessionId
        self.sessionName = sessionName
        self.url = url
        self.requestId = requestId
        self.title = title
        self.body = body
        self.severity = severity
        self.notifySummary = notifySummary
        self.contractVersion = contractVersion
    }

    /// Reads a decrypted plaintext as a device does: a JSON object whose values are all
    /// strings, carrying `type`, `sessionId`, `title`, `body` and `contractVersion`. Unknown
    /// members are ignored.
    ///
    /// - Important: protocol/hapi-push.md §3, receiver rule 6.
    public init(plaintext: [UInt8]) throws(WireFieldError) {
        guard let object = (try? JSONValue.parse(plaintext))?.objectValue else {
            throw WireFieldError(field: "plaintext", problem: "must be a JSON object")
        }
        var fields: [String: String] = [:]
        for (key, value) in object.members {
            guard let text = value.stringValue else { throw WireFieldError(field: key, problem: "must be a string") }
            fields[key] = text
        }
        func required(_ key: String) throws(WireFieldError) -> String {
            guard let value = fields[key] else { throw WireFieldError(field: key, problem: "is required") }
            return value
        }
        self.init(type: HapiNotificationType(rawValue: try required("type")), sessionId: try required("sessionId"),
                  sessionName: fields["sessionName"], url: fields["url"], requestId: fields["requestId"],
                  title: try required("title"), body: try required("body"),
                  severity: fields["severity"].map(HapiSeverity.init(rawValue:)),
                  notifySummary: fields["notifySummary"], contractVersion: try required("contractVersion"))
    }

    /// The payload object: the FCM `data` map in direct mode, the plaintext source otherwise.
    public var json: JSONObject {
        var object: JSONObject = ["type": .string(type.rawValue), "sessionId": .string(sessionId)]
        if let sessionName { object["sessionName"] = .string(sessionName) }
        if let url { object["url"] = .string(url) }
        if let requestId, !requestId.isEmpty { object["requestId"] = .string(requestId) }
        object["title"] = .string(title)
        object["body"] = .string(body)
        if let severity, !severity.rawValue.isEmpty { object["severity"] = .string(severity.rawValue) }
        object["contractVersion"] = .string(contractVersion)
        if let notifySummary, !notifySummary.isEmpty { object["notifySummary"] = .string(notifySummary) }
        return object
    }

    /// The UTF-8 canonical JSON (protocol/hapi-push.md §2) that gets encrypted.
    public var canonicalPlaintext: [UInt8] { JSONValue.object(json).canonicalBytes() }

    /// The same payload without `notifySummary` (fallback step 2, protocol/hapi-push.md §4).
    public var withoutSummary: HapiPayload {
        var copy = self
        copy.notifySummary = nil
        return copy
    }

    /// The minimal fallback (protocol/hapi-push.md §4 step 3): `type`, `sessionId` and `requestId`
    /// copied, title `HAPI`, body `New activity`, nothing else.
    public var minimal: HapiPayload {
        HapiPayload(type: type, sessionId: sessionId, requestId: requestId, title: "HAPI", body: "New activity")
    }
}
