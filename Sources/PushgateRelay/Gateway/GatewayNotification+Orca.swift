import PushgateCore
import PushgateStore

extension GatewayNotification {
    /// The `orca` object of protocol/gateway.md §7, members in that order, absent optionals left out;
    /// `agentState` is always present (null when null).
    func orcaObject(hostFingerprint: String, coalescedCount: Int) -> JSONObject {
        var object = JSONObject([("hostFingerprint", .string(hostFingerprint))])
        if let worktreeId { object["worktreeId"] = .string(worktreeId) }
        if let notificationId { object["notificationId"] = .string(notificationId) }
        object["notificationSeq"] = .integer(notificationSeq)
        object["notificationEpoch"] = .string(notificationEpoch)
        object["source"] = .string(source)
        object["agentState"] = agentState.map(JSONValue.string) ?? .null
        object["coalescedCount"] = .integer(Int64(coalescedCount))
        return object
    }
}
