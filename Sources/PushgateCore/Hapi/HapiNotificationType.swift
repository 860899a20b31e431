/// The `type` of a hapi notification payload. Receivers render an unknown type as a plain
/// notification, so this is an open set.
///
/// - Important: protocol/hapi-push.md §1.
public struct HapiNotificationType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let ready = HapiNotificationType(rawValue: "ready")
    public static let permissionRequest = HapiNotificationType(rawValue: "permission-request")
    public static let inputRequest = HapiNotificationType(rawValue: "input-request")
    public static let taskNotification = HapiNotificationType(rawValue: "task-notification")
}
