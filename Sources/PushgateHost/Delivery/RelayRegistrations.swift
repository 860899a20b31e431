import PushgateCore
import PushgateProviders

/// Binds tokens of one kind to this host on the signed relay, with the host's registration
/// cache; shared by the alert and the Live Activity transports.
///
/// - Important: host.md §5 — registrations are cached by (relay URL, token, kind), run at most
///   16 at a time, and a token whose registration failed is skipped and retried next time.
struct RelayRegistrations: Sendable {
    /// The relay's token kinds; the raw value is the cache's `kind`.
    enum Kind: String, Sendable {
        case alert
        case liveActivity = "liveactivity"

        /// How log lines name such a token.
        var noun: String { self == .alert ? "token" : "Live Activity token" }
    }

    /// The most registrations in flight at once.
    static let concurrency = 16

    let kind: Kind
    let client: SignedRelayClient
    let store: HostStore
    let logger: Logger

    /// Those of `tokens` that are registered, registering the others first.
    func prepare(_ tokens: [String]) async -> Set<String> {
        var ready = (try? await store.registeredTokens(relayURL: client.baseURL, tokens: tokens, kind: kind.rawValue)) ?? []
        let missing = tokens.filter { !ready.contains($0) }
        let registered = await forEachConcurrently(missing, limit: Self.concurrency) { token in
            await register(token) ? token : nil
        }
        for token in registered.compactMap({ $0 }) { ready.insert(token) }
        return ready
    }

    /// Registers one token; caches and returns `true` on success.
    func register(_ token: String) async -> Bool {
        do {
            let reply = try await kind == .alert ? client.registerToken(token) : client.registerLiveActivityToken(token)
            guard reply.isSuccess else {
                logger.warning("relay refused a \(kind.noun) registration; it is tried again before the next push",
                               ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
                return false
            }
            try await store.markRegistered(relayURL: client.baseURL, token: token, kind: kind.rawValue)
            return true
        } catch {
            logger.warning("\(kind.noun) registration did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["token": Redact.token(token), "error": "\(error)"])
            return false
        }
    }

    /// Removes this host's binding of `token` on the relay (best effort).
    func unregister(_ token: String) async {
        do {
            let reply = try await kind == .alert ? client.unregisterToken(token) : client.unregisterLiveActivityToken(token)
            if !reply.isSuccess {
                logger.warning("relay refused a \(kind.noun) unregistration",
                               ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
            }
        } catch {
            logger.warning("\(kind.noun) unregistration did not reach the relay",
                           ["token": Redact.token(token), "error": "\(error)"])
        }
    }

    /// Per token of a send-type request: the relay's row, or `failed` when the relay refused
    /// the request or did not answer (`reply` nil).
    static func outcomes(_ tokens: [String], _ reply: RelayReply?) -> [String: TokenOutcome] {
        var outcomes = Dictionary(tokens.map { ($0, TokenOutcome.failed) }, uniquingKeysWith: { first, _ in first })
        guard let reply, reply.isSuccess else { return outcomes }
        for row in reply.results where outcomes[row.token] != nil {
            outcomes[row.token] = row.ok ? .accepted : (row.drop ? .dropped : .failed)
        }
        return outcomes
    }
}
