import PushgateCore

extension FCMMessage {
    /// A message whose `message` object the caller built, for shapes other than hapi's: the
    /// Orca gateway's notification messages (protocol/gateway.md §7.2) carry a `notification` block.
    public init(token: String, messageObject: JSONObject) {
        self.init(token: token, message: messageObject)
    }
}
