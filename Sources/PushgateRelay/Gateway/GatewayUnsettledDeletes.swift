import PushgateStore
import Synchronization

/// Outbox rows of finished windows whose delete failed (a store error after the provider's
/// answer): kept here and deleted before any next attempt, so a window that was dealt with is
/// not sent again from its rows at the next start. The host outbox keeps its unsettled rows the
/// same way (docs/gateway.md "Coalescing and delivery").
final class GatewayUnsettledDeletes: Sendable {
    private let sendIds = Mutex<[String]>([])

    /// Keeps `sendIds` for the next ``settle(in:)``.
    func keep(_ ids: [String]) { sendIds.withLock { $0 += ids } }

    /// Deletes the kept rows; gives them back when that fails too.
    func settle(in store: any GatewayStore) async throws {
        let pending = sendIds.withLock { pending in defer { pending = [] }; return pending }
        guard !pending.isEmpty else { return }
        do {
            try await store.deleteOutbox(sendIds: pending)
        } catch {
            keep(pending)
            throw error
        }
    }
}
