import PushgateCore
import PushgateProviders

/// Delivers alerts through the signed relay, registering each token before its first send
/// and repairing lost bindings (``RelayRegistrations``, kind `alert`).
public struct RelayTransport: AlertTransport {
    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let registrations: RelayRegistrations
    private let logger: Logger

    /// `clock` dates the cached registrations' refresh and the repair holds.
    public init(client: SignedRelayClient, store: HostStore, clock: any WallClock, logger: Logger) {
        self.client = client
        self.logger = logger.named("relay-transport")
        registrations = RelayRegistrations(kind: .alert, client: client, store: store, clock: clock, logger: self.logger)
    }

    /// The relay base URL registrations are cached under.
    public var relayURL: String { client.baseURL }

    public func prepare(_ tokens: [String]) async -> Set<String> { await registrations.prepare(tokens) }

    /// Registers a token a phone just registered (or registered again), whatever the cache
    /// says: a phone's registration always refreshes its binding on the relay.
    public func bind(_ token: String) async { _ = await registrations.register(token) }

    /// Removes this host's binding of `token` on the relay (best effort).
    public func unregister(_ token: String) async { await registrations.unregister(token) }

    public func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome] {
        await registrations.deliver(batch.tokens) { tokens in await send(batch, to: tokens) }
    }

    /// One signed send of `batch` to `tokens`; nil when it did not reach the relay.
    private func send(_ batch: AlertBatch, to tokens: [String]) async -> RelayReply? {
        do {
            let reply = try await client.send(tokens: tokens, title: batch.title, body: batch.body, badge: Int64(batch.badge),
                                              collapseId: batch.tag, environment: batch.environment, data: batch.data)
            if !reply.isSuccess {
                logger.warning("relay refused a send batch; other batches continue",
                               ["tokens": "\(tokens.count)", "status": "\(reply.status)", "error": reply.errorCode ?? ""])
            }
            return reply
        } catch {
            logger.warning("send batch did not reach the relay; other batches continue",
                           ["tokens": "\(tokens.count)", "error": "\(error)"])
            return nil
        }
    }
}
