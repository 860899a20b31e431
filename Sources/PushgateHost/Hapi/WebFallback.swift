import PushgateCore

/// What the Web Push fallback of one dispatch is about: the event and, when it has one, its
/// readable hapi payload.
public struct WebFallbackNotification: Sendable {
    public var event: HostEvent
    public var payload: HapiPayload?
    public var namespace: String
}

/// The web side of notifications, supplied by the embedding application: the in-app toast
/// for visible web clients, and Web Push.
public protocol WebFallbackChannel: Sendable {
    /// Shows the toast to the visible web clients of the namespace; returns how many received it.
    func showToast(_ notification: WebFallbackNotification) async -> Int
    /// Sends Web Push to the namespace's subscriptions.
    func sendWebPush(_ notification: WebFallbackNotification) async
}

/// Routes the web side of one dispatch, after its native transports: nowhere, the toast, or Web Push.
///
/// - Important: protocol/hapi-push.md §10 — `nativeDelivered` (true when at least one native send of
///   this dispatch was sent) suppresses both the toast and Web Push; otherwise a toast that
///   reached a client stops there, else Web Push is sent. The flag is never cached across
///   events; with debug logging the branch taken is logged.
enum WebFallbackRouter {
    /// The branch taken.
    enum Branch: String, Equatable {
        case suppressed, toast, webPush
    }

    static func run(nativeDelivered: Bool, notification: WebFallbackNotification, channel: any WebFallbackChannel,
                    logger: Logger) async -> Branch {
        let branch: Branch
        if nativeDelivered {
            branch = .suppressed
        } else if await channel.showToast(notification) > 0 {
            branch = .toast
        } else {
            await channel.sendWebPush(notification)
            branch = .webPush
        }
        logger.debug("web fallback", ["branch": branch.rawValue, "type": notification.event.type.rawValue])
        return branch
    }
}
