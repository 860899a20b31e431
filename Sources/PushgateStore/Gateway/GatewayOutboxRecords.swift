/// An accepted notification waiting in the outbox (`push_outbox`) until its window is delivered.
public struct GatewayQueuedNotification: Sendable, Equatable {
    /// The id of its `push_send_log` row, written in the same transaction.
    public var sendId: String
    public var acceptedAt: Int64
    public var notification: GatewayNotification

    public init(sendId: String, acceptedAt: Int64, notification: GatewayNotification) {
        self.sendId = sendId
        self.acceptedAt = acceptedAt
        self.notification = notification
    }
}

/// One outbox row as a relay takes it over: the notification, where it goes, and how far its
/// window's delivery got.
public struct GatewayOutboxRow: Sendable, Equatable {
    public var registrationId: String
    public var hostFingerprint: String
    public var queued: GatewayQueuedNotification
    /// Failed attempts at its window so far.
    public var attempts: Int
    /// When its window is due: the end of the coalescing window, or the next retry.
    public var dueAt: Int64
    /// The window it was claimed for before a send (``GatewayStore/claimOutbox(sendIds:windowId:)``);
    /// `nil` while its window was still collecting.
    public var windowId: String?

    public init(registrationId: String, hostFingerprint: String, queued: GatewayQueuedNotification, attempts: Int, dueAt: Int64,
                windowId: String? = nil) {
        self.registrationId = registrationId
        self.hostFingerprint = hostFingerprint
        self.queued = queued
        self.attempts = attempts
        self.dueAt = dueAt
        self.windowId = windowId
    }
}
