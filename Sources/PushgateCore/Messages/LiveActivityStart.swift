/// What a push-to-start carries beyond an update: the ActivityKit attributes type and the
/// static attributes the new activity is made with, and the alert iOS shows as it starts it.
/// A Pushgate extension of the `live-activity` route; none of it is signed (docs/relay.md,
/// "Live Activity").
public struct LiveActivityStart: Sendable, Equatable {
    /// The longest `attributesType`, in bytes.
    public static let maxAttributesTypeBytes = 128
    /// The longest alert title and body, in bytes (those of an alert `send`).
    public static let maxAlertTitleBytes = 256
    public static let maxAlertBodyBytes = 1_024

    /// The name of the app's `ActivityAttributes` type (`aps.attributes-type`).
    public let attributesType: String
    /// The attributes the app's type decodes (`aps.attributes`).
    public let attributes: JSONObject
    public let alertTitle: String
    public let alertBody: String?

    /// A start from its parts; throws when the type is not a Swift identifier of 1 to 128
    /// bytes, or the title is empty or a text is too long.
    public init(attributesType: String, attributes: JSONObject, alertTitle: String, alertBody: String? = nil) throws(WireFieldError) {
        guard Self.isTypeName(attributesType) else {
            throw WireFieldError(field: "attributesType", problem: "must be a type name of 1 to 128 letters, digits and _")
        }
        guard !alertTitle.isEmpty, alertTitle.utf8.count <= Self.maxAlertTitleBytes else {
            throw WireFieldError(field: "alert.title", problem: "must be 1 to 256 bytes")
        }
        if let alertBody, alertBody.utf8.count > Self.maxAlertBodyBytes {
            throw WireFieldError(field: "alert.body", problem: "must be at most 1024 bytes")
        }
        self.attributesType = attributesType
        self.attributes = attributes
        self.alertTitle = alertTitle
        self.alertBody = alertBody
    }

    /// Reads `attributesType`, `attributes` and `alert` (`{title, body?}`, nothing else) of a
    /// request body; other members are left to the caller.
    public init(json: JSONValue) throws(WireFieldError) {
        let reader = try FieldReader(json, path: "")
        guard let attributes = reader.object["attributes"] else {
            throw WireFieldError(field: "attributes", problem: "is required")
        }
        guard let attributesObject = attributes.objectValue else {
            throw WireFieldError(field: "attributes", problem: "must be an object")
        }
        guard let alert = reader.object["alert"] else { throw WireFieldError(field: "alert", problem: "is required") }
        let alertReader = try FieldReader(alert, path: "alert")
        try alertReader.requireOnly(["title", "body"])
        try self.init(attributesType: reader.string("attributesType"), attributes: attributesObject,
                      alertTitle: alertReader.string("title"), alertBody: alertReader.optionalString("body"))
    }

    /// The members of a request body, in this order: `attributesType`, `attributes`, `alert`.
    public var requestMembers: [(String, JSONValue)] {
        [("attributesType", .string(attributesType)), ("attributes", .object(attributes)), ("alert", .object(alert))]
    }

    /// The members of `aps` after `content-state` (and `stale-date`), in this order:
    /// `attributes-type`, `attributes`, `alert`, then `input-push-token: 1`, which asks iOS to
    /// give the new activity an update token for the app to register.
    public var apsMembers: [(String, JSONValue)] {
        [("attributes-type", .string(attributesType)), ("attributes", .object(attributes)), ("alert", .object(alert)),
         ("input-push-token", 1)]
    }

    private var alert: JSONObject {
        var alert = JSONObject([("title", .string(alertTitle))])
        if let alertBody { alert["body"] = .string(alertBody) }
        return alert
    }

    /// A Swift type name: a letter or `_`, then letters, digits and `_`; 1 to 128 bytes.
    private static func isTypeName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maxAttributesTypeBytes else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        return (isLetter(first) || first == UInt8(ascii: "_"))
            && name.utf8.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") }
    }
}
