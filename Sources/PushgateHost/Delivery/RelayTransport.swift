import PushgateCore
import PushgateProviders

/// Delivers alerts through the signed relay, registering each token before its first send
/// (``RelayRegistrations``, kind `alert`).
public struct RelayTransport: AlertTransport {
    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let registrations: RelayRegistrations
    private let logger: Logger

    public init(client: SignedRelayClient, store: HostStore, logger: Logger) {
        self.client = client
        self.logger = logger.named("relay-transport")
        registrations = RelayRegistrations(kind: .alert, client: client, store: store, logger: self.logger)
    }

    /// The relay base URL registrations are cached under.
    public var relayURL: String { client.baseURL }

    public func prepare(_ tokens: [String]) async -> Set<String> { await registrations.prepare(tokens) }

    /// Removes this host's binding of `token` on the relay (best effort).
    public func unregister(_ token: String) async { await registrations.unregister(token) }

    public func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome] {
        do {
            let reply = try await client.send(tokens: batch.tokens, title: batch.title, body: batch.body, badge: Int64(batch.badge),
                                              collapseId: batch.tag, environment: batch.environment, data: batch.data)
            if !reply.isSuccess {
                logger.warning("relay refused a send batch; other batches continue",
                               ["tokens": "\(batch.tokens.count)", "status": "\(reply.status)", "error": reply.errorCode ?? ""])
            }
            return RelayRegistrations.outcomes(batch.tokens, reply)
        } catch {
            logger.warning("send batch did not reach the relay; other batches continue",
                           ["tokens": "\(batch.tokens.count)", "error": "\(error)"])
            return RelayRegistrations.outcomes(batch.tokens, nil)
        }
    }
}
