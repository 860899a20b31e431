import PushgateCore
import PushgateStore

/// What one flushed window sends to one registration.
///
/// - Important: protocol/gateway.md §6 — N = 1 keeps the notification's own title, body and
///   collapse id; N > 1 becomes `Orca` / `"<N> agents need attention"` or `"<N> updates"`
///   under `host:<fingerprint>`; the `orca` data is always the latest one's, plus `coalescedCount`.
struct GatewayDelivery: Sendable, Equatable {
    /// Longest collapse id, in UTF-8 bytes.
    static let maxCollapseIdBytes = 64

    var registrationId: String
    var hostFingerprint: String
    var title: String
    var body: String
    var collapseId: String
    var orca: JSONObject

    /// The delivery for a window of `count` notifications ending with `latest`.
    init(registrationId: String, hostFingerprint: String, latest: GatewayNotification, count: Int, anyNeedsInput: Bool) {
        self.registrationId = registrationId
        self.hostFingerprint = hostFingerprint
        let hostCollapseId = "host:" + hostFingerprint
        if count == 1 {
            title = latest.title
            body = latest.body
            collapseId = latest.notificationId.map(Self.cutToCollapseId) ?? hostCollapseId
        } else {
            title = "Orca"
            body = anyNeedsInput ? "\(count) agents need attention" : "\(count) updates"
            collapseId = hostCollapseId
        }
        orca = latest.orcaObject(hostFingerprint: hostFingerprint, coalescedCount: count)
    }

    /// The first 64 UTF-8 bytes of `id`, without splitting a character: continuation bytes at
    /// the cut point are dropped along with the character they belong to.
    static func cutToCollapseId(_ id: String) -> String {
        let bytes = Array(id.utf8)
        guard bytes.count > maxCollapseIdBytes else { return id }
        var end = maxCollapseIdBytes
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

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
