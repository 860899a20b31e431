/// One accepted `/v1/send` notification: what its window and the outbox table keep of it.
///
/// - Important: docs/gateway.md "Devices, send, quotas" — the fields of the request's `notification` object.
public struct GatewayNotification: Sendable, Equatable {
    public var notificationId: String?
    public var notificationSeq: Int64
    public var notificationEpoch: String
    public var source: String
    /// `needs-input`, `finished` or nil.
    public var agentState: String?
    public var title: String
    public var body: String
    public var worktreeId: String?

    public init(notificationId: String?, notificationSeq: Int64, notificationEpoch: String, source: String, agentState: String?,
                title: String, body: String, worktreeId: String?) {
        self.notificationId = notificationId
        self.notificationSeq = notificationSeq
        self.notificationEpoch = notificationEpoch
        self.source = source
        self.agentState = agentState
        self.title = title
        self.body = body
        self.worktreeId = worktreeId
    }
}
