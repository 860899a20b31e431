/// Why an ``APNsNotification`` could not be built.
public struct APNsNotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which field is wrong, and how.
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { "invalid APNs notification: \(message)" }
}
