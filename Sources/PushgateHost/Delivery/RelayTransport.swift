import PushgateCore
import PushgateProviders

/// Delivers alerts through the signed relay, registering each token before its first send.
///
/// - Important: host.md §5 — registrations are cached by (relay URL, token, kind), run at most
///   16 at a time, and a token whose registration failed is skipped and retried next time.
public struct RelayTransport: AlertTransport {
    /// The most registrations in flight at once.
    public static let registrationConcurrency = 16
    /// The registration cache's `kind` for alert tokens.
    static let alertKind = "alert"

    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let store: HostStore
    private let logger: Logger

    public init(client: SignedRelayClient, store: HostStore, logger: Logger) {
        self.client = client
        self.store = store
        self.logger = logger.named("relay-transport")
    }

    /// The relay base URL registrations are cached under.
    public var relayURL: String { client.baseURL }

    public func prepare(_ tokens: [String]) async -> Set<String> {
        var ready = (try? await store.registeredTokens(relayURL: client.baseURL, tokens: tokens, kind: Self.alertKind)) ?? []
        let missing = tokens.filter { !ready.contains($0) }
        let registered = await forEachConcurrently(missing, limit: Self.registrationConcurrency) { token in
            await register(token) ? token : nil
        }
        for token in registered.compactMap({ $0 }) { ready.insert(token) }
        return ready
    }

    /// Registers one token; caches and returns `true` on success.
    public func register(_ token: String) async -> Bool {
        do {
            let reply = try await client.registerToken(token)
            guard reply.isSuccess else {
                logger.warning("relay refused a token registration; the token is retried on the next push",
                               ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
                return false
            }
            try await store.markRegistered(relayURL: client.baseURL, token: token, kind: Self.alertKind)
            return true
        } catch {
            logger.warning("token registration did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["token": Redact.token(token), "error": "\(error)"])
            return false
        }
    }

    /// Removes this host's binding of `token` on the relay (best effort).
    public func unregister(_ token: String) async {
        do {
            let reply = try await client.unregisterToken(token)
            if !reply.isSuccess {
                logger.warning("relay refused a token unregistration", ["token": Redact.token(token), "status": "\(reply.status)"])
            }
        } catch {
            logger.warning("token unregistration did not reach the relay", ["token": Redact.token(token), "error": "\(error)"])
        }
    }

    public func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome] {
        var outcomes = Dictionary(batch.tokens.map { ($0, TokenOutcome.failed) }, uniquingKeysWith: { a, _ in a })
        do {
            let reply = try await client.send(tokens: batch.tokens, title: batch.title, body: batch.body, badge: Int64(batch.badge),
                                              collapseId: batch.tag, environment: batch.environment, data: batch.data)
            guard reply.isSuccess else {
                logger.warning("relay refused a send batch; other batches continue",
                               ["tokens": "\(batch.tokens.count)", "status": "\(reply.status)", "error": reply.errorCode ?? ""])
                return outcomes
            }
            for row in reply.results where outcomes[row.token] != nil {
                outcomes[row.token] = row.ok ? .accepted : (row.drop ? .dropped : .failed)
            }
        } catch {
            logger.warning("send batch did not reach the relay; other batches continue",
                           ["tokens": "\(batch.tokens.count)", "error": "\(error)"])
        }
        return outcomes
    }
}
