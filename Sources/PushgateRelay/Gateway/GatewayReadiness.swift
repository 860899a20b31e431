import PushgateCore
import PushgateStore
import Synchronization

/// Whether the gateway's store answered its last probe: `GET /ready` reads this instead of
/// making a database round trip per request, so polling `/ready` costs the database nothing
/// (docs/security.md, M9). The gateway's scheduler refreshes it every ``refreshIntervalMs``.
final class GatewayReadiness: Sendable {
    static let refreshIntervalMs: Int64 = 10_000

    private let storeAnswered = Atomic<Bool>(true)
    private let logger: Logger

    /// Starts as ready: the store has just been opened.
    init(logger: Logger) { self.logger = logger }

    var isStoreReachable: Bool { storeAnswered.load(ordering: .relaxed) }

    /// Probes the store once with a cheap read; logs only when the answer changes.
    func refresh(_ store: any GatewayStore) async {
        let reachable: Bool
        do {
            _ = try await store.session(tokenHash: "")
            reachable = true
        } catch {
            reachable = false
            if isStoreReachable { logger.error("gateway store unreachable; check the database", ["error": "\(type(of: error))"]) }
        }
        if storeAnswered.exchange(reachable, ordering: .relaxed) != reachable, reachable {
            logger.info("gateway store reachable again")
        }
    }
}
