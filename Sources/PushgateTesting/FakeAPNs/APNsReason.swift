/// An APNs error reason string, as sent in `{"reason":…}` (Apple's "Handling notification
/// responses from APNs" list); scripts may use any other string too.
public struct APNsReason: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    public static let badCollapseId: APNsReason = "BadCollapseId"
    public static let badDeviceToken: APNsReason = "BadDeviceToken"
    public static let badExpirationDate: APNsReason = "BadExpirationDate"
    public static let badMessageId: APNsReason = "BadMessageId"
    public static let badPath: APNsReason = "BadPath"
    public static let badPriority: APNsReason = "BadPriority"
    public static let badTopic: APNsReason = "BadTopic"
    public static let deviceTokenNotForTopic: APNsReason = "DeviceTokenNotForTopic"
    public static let duplicateHeaders: APNsReason = "DuplicateHeaders"
    public static let expiredProviderToken: APNsReason = "ExpiredProviderToken"
    public static let internalServerError: APNsReason = "InternalServerError"
    public static let invalidProviderToken: APNsReason = "InvalidProviderToken"
    public static let invalidPushType: APNsReason = "InvalidPushType"
    public static let methodNotAllowed: APNsReason = "MethodNotAllowed"
    public static let missingDeviceToken: APNsReason = "MissingDeviceToken"
    public static let missingProviderToken: APNsReason = "MissingProviderToken"
    public static let missingTopic: APNsReason = "MissingTopic"
    public static let payloadEmpty: APNsReason = "PayloadEmpty"
    public static let payloadTooLarge: APNsReason = "PayloadTooLarge"
    public static let serviceUnavailable: APNsReason = "ServiceUnavailable"
    public static let shutdown: APNsReason = "Shutdown"
    public static let tooManyRequests: APNsReason = "TooManyRequests"
    public static let unregistered: APNsReason = "Unregistered"
}
