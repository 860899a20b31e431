import PushgateStore

/// One registration's queued notifications, oldest first, as a coalescing window holds them:
/// when they are due to be delivered and how many attempts at them have failed so far.
struct GatewayWindow: Sendable {
    var registrationId: String
    var hostFingerprint: String
    /// Never empty.
    var notifications: [GatewayQueuedNotification]
    var attempts: Int
    var dueAt: Int64
    /// Set when the window is first claimed for a send (its first notification's send id, kept
    /// in its rows): from then on it takes no other notification, so every resend is the push
    /// that may have arrived, under the same collapse id. `nil` while it collects.
    var windowId: String? = nil

    var sendIds: [String] { notifications.map(\.sendId) }

    /// The summary the window sends (docs/gateway.md, "Coalescing and delivery").
    var delivery: GatewayDelivery {
        GatewayDelivery(registrationId: registrationId, hostFingerprint: hostFingerprint,
                        latest: notifications[notifications.count - 1].notification, count: notifications.count,
                        anyNeedsInput: notifications.contains { $0.notification.agentState == "needs-input" })
    }
}
