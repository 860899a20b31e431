import PushgateCore

/// The notification blocks of a message, checked as FCM HTTP v1 checks them: `message.notification`
/// (`title`, `body`, `image`) and `message.android.notification` (AndroidNotification). An unknown
/// member or a value of the wrong type is a 400 `INVALID_ARGUMENT` naming the member's path.
///
/// - Important: docs/fake-fcm.md — members by their proto names (snake_case), as Pushgate's
///   builders write them; `notification_count` is an integer (int32).
extension FCMMessageValidator {
    /// What one member may hold.
    enum MemberType {
        case string
        /// An array of strings.
        case strings
        case bool
        /// A JSON integer within Int32.
        case int32
        /// `#rrggbb`.
        case color
        /// One of an enum's names.
        case oneOf(Set<String>)
        /// A nested object, not looked into.
        case object
    }

    /// `message.notification`.
    static let notificationMembers: [String: MemberType] = ["title": .string, "body": .string, "image": .string]

    /// `message.android.notification`.
    static let androidNotificationMembers: [String: MemberType] = [
        "title": .string, "body": .string, "icon": .string, "color": .color, "sound": .string, "tag": .string,
        "click_action": .string, "body_loc_key": .string, "body_loc_args": .strings, "title_loc_key": .string,
        "title_loc_args": .strings, "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .string,
        "local_only": .bool, "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool,
        "vibrate_timings": .strings, "light_settings": .object, "image": .string, "bypass_proxy_notification": .bool,
        "notification_count": .int32,
        "notification_priority": .oneOf(["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT",
                                         "PRIORITY_HIGH", "PRIORITY_MAX"]),
        "visibility": .oneOf(["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]),
        "proxy": .oneOf(["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
    ]

    /// Checks the object at `path` (absent is fine) against `members`.
    static func checkMembers(_ value: JSONValue?, at path: String, _ members: [String: MemberType]) -> FakeFCMError? {
        guard let value else { return nil }
        guard let object = value.objectValue else { return .invalidArgument("Invalid value at '\(path)'.", field: path) }
        for (name, member) in object.members {
            guard let type = members[name] else {
                return .invalidArgument("Invalid JSON payload received. Unknown name \"\(name)\" at '\(path)': Cannot find field.",
                                        field: "\(path).\(name)")
            }
            if let problem = type.problem(with: member) {
                return .invalidArgument("Invalid value at '\(path).\(name)' (\(problem)).", field: "\(path).\(name)")
            }
        }
        return nil
    }
}

extension FCMMessageValidator.MemberType {
    /// Why `value` does not fit, in the words of Google's errors; nil when it fits.
    func problem(with value: JSONValue) -> String? {
        switch self {
        case .string: value.stringValue == nil ? "TYPE_STRING" : nil
        case .strings: value.arrayValue?.allSatisfy({ $0.stringValue != nil }) == true ? nil : "TYPE_STRING, repeated"
        case .bool: value.boolValue == nil ? "TYPE_BOOL" : nil
        case .int32:
            if case .integer(let number) = value, Int64(Int32.min)...Int64(Int32.max) ~= number { nil } else { "TYPE_INT32" }
        case .color: Self.isColor(value.stringValue) ? nil : "color must be #rrggbb"
        case .oneOf(let names): value.stringValue.map(names.contains) == true ? nil : "TYPE_ENUM"
        case .object: value.objectValue == nil ? "TYPE_MESSAGE" : nil
        }
    }

    private static func isColor(_ text: String?) -> Bool {
        guard let text, text.utf8.count == 7, text.utf8.first == UInt8(ascii: "#") else { return false }
        return text.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }
}
