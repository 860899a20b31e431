import PushgateCore
import PushgateProviders

/// Delivers alerts through the signed relay, registering each token before its first send
/// with its platform and repairing lost bindings (``RelayRegistrations``, kinds `alert` and
/// `alert.android`). iOS and Android tokens of one batch share one signed send: the relay
/// routes each by the platform this host bound it with (docs/host.md, "Android alert tokens").
public struct RelayTransport: AlertTransport {
    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let ios: RelayRegistrations
    private let android: RelayRegistrations
    private let logger: Logger

    /// `clock` dates the cached registrations' refresh and the repair holds.
    public init(client: SignedRelayClient, store: HostStore, clock: any WallClock, logger: Logger) {
        self.client = client
        self.logger = logger.named("relay-transport")
        ios = RelayRegistrations(kind: .alert, client: client, store: store, clock: clock, logger: self.logger)
        android = RelayRegistrations(kind: .androidAlert, client: client, store: store, clock: clock, logger: self.logger)
    }

    /// The relay base URL registrations are cached under.
    public var relayURL: String { client.baseURL }

    public func prepare(_ tokens: [AlertToken]) async -> Set<String> {
        let androidTokens = tokens.filter { $0.platform == .android }.map(\.token)
        let ready = await ios.prepare(tokens.filter { $0.platform == .ios }.map(\.token))
        return androidTokens.isEmpty ? ready : ready.union(await android.prepare(androidTokens))
    }

    /// Registers a token a phone just registered (or registered again), whatever the cache
    /// says: a phone's registration always refreshes its binding on the relay.
    public func bind(_ token: AlertToken) async { _ = await registrations(token.platform).register(token.token) }

    /// Removes this host's binding of `token` on the relay (best effort).
    public func unregister(_ token: String, platform: AlertToken.Platform) async { await registrations(platform).unregister(token) }

    public func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome] {
        await RelayRegistrations.deliver(batch.tokens, repair: { lost in
            await ios.repair(lost.filter { !batch.androidTokens.contains($0) })
                + android.repair(lost.filter { batch.androidTokens.contains($0) })
        }) { tokens in await send(batch, to: tokens) }
    }

    private func registrations(_ platform: AlertToken.Platform) -> RelayRegistrations { platform == .ios ? ios : android }

    /// One signed send of `batch` to `tokens`; nil when it did not reach the relay.
    private func send(_ batch: AlertBatch, to tokens: [String]) async -> RelayReply? {
        do {
            let reply = batch.dismissCollapseIds.isEmpty
                ? try await client.send(tokens: tokens, title: batch.title, body: batch.body, badge: Int64(batch.badge),
                                        collapseId: batch.tag, environment: batch.environment, data: batch.data,
                                        attention: batch.attention)
                : try await client.background(tokens: tokens, collapseIds: batch.dismissCollapseIds, environment: batch.environment)
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
