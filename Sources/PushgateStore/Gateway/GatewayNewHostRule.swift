/// What lets a redeemed challenge add a host that `push_hosts` does not hold yet: the table's
/// ceiling, then the redeeming client's budget of new hosts. A known host needs neither, so
/// hosts already stored keep opening sessions when the table is full.
///
/// - Important: docs/gateway.md "Growth" (`MAX_HOSTS`, `NEW_HOSTS_PER_IP_PER_HOUR`).
public struct GatewayNewHostRule: Sendable {
    /// Hosts the table may hold.
    public var maxHosts: Int
    /// Spends one new host of the client's budget; `false` when it is spent. Called only for a
    /// newcomer that fits under the ceiling, inside the store's transaction.
    public var spendClientBudget: @Sendable () -> Bool

    public init(maxHosts: Int, spendClientBudget: @escaping @Sendable () -> Bool) {
        self.maxHosts = maxHosts
        self.spendClientBudget = spendClientBudget
    }
}
