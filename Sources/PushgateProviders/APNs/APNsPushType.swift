/// The `apns-push-type` header value (an open set: Apple adds types).
public struct APNsPushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A visible notification.
    public static let alert = APNsPushType(rawValue: "alert")
    /// A content-available (silent) push.
    public static let background = APNsPushType(rawValue: "background")
    /// A Live Activity update or end; the topic must end in `.push-type.liveactivity`.
    public static let liveActivity = APNsPushType(rawValue: "liveactivity")
    /// A VoIP push; the topic must end in `.voip`.
    public static let voip = APNsPushType(rawValue: "voip")
}
