import PushgateCore
import PushgateProviders

/// Delivers Live Activity pushes through the signed relay (`/v1/push/live-activity`),
/// registering each token on the relay (`register-live-activity-token`) before its first push.
///
/// - Important: relay-protocol.md §3 and §5; host.md §5–§6 — registrations are cached by
///   (relay URL, token, kind `liveactivity`) and run at most 16 at a time; a replaced, evicted
///   or expired token is unregistered with a signed request.
public struct RelayLiveActivityTransport: LiveActivityTransport {
    /// The registration cache's `kind` for Live Activity tokens.
    static let kind = "liveactivity"

    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let store: HostStore
    private let logger: Logger

    public init(client: SignedRelayClient, store: HostStore, logger: Logger) {
        self.client = client
        self.store = store
        self.logger = logger.named("live-activity-relay")
    }

    public func prepare(_ tokens: [String]) async -> Set<String> {
        var ready: Set<String> = []
        var missing: [String] = []
        for token in tokens {
            if (try? await store.isRegistered(relayURL: client.baseURL, token: token, kind: Self.kind)) == true {
                ready.insert(token)
            } else {
                missing.append(token)
            }
        }
        let registered = await forEachConcurrently(missing, limit: RelayTransport.registrationConcurrency) { token in
            await register(token) ? token : nil
        }
        return ready.union(registered.compactMap { $0 })
    }

    public func unbind(_ token: String) async {
        await forget([token])
        do {
            let reply = try await client.unregisterLiveActivityToken(token)
            if !reply.isSuccess {
                logger.warning("relay refused a Live Activity token unregistration",
                               ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
            }
        } catch {
            logger.warning("Live Activity token unregistration did not reach the relay",
                           ["token": Redact.token(token), "error": "\(error)"])
        }
    }

    public func forget(_ tokens: [String]) async {
        for token in tokens {
            do {
                try await store.forgetRegistration(token: token, kind: Self.kind)
            } catch {
                logger.error("could not update the relay registration cache in host.sqlite", ["error": "\(error)"])
            }
        }
    }

    public func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome] {
        var outcomes = Dictionary(push.tokens.map { ($0, TokenOutcome.failed) }, uniquingKeysWith: { first, _ in first })
        do {
            let reply = try await client.liveActivity(push, environment: environment, priority: priority)
            guard reply.isSuccess else {
                logger.warning("relay refused a Live Activity push; its tokens are tried again on the next change or tick",
                               ["tokens": "\(push.tokens.count)", "status": "\(reply.status)", "error": reply.errorCode ?? ""])
                return outcomes
            }
            for row in reply.results where outcomes[row.token] != nil {
                outcomes[row.token] = row.ok ? .accepted : (row.drop ? .dropped : .failed)
            }
        } catch {
            logger.warning("Live Activity push did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["tokens": "\(push.tokens.count)", "error": "\(error)"])
        }
        return outcomes
    }

    private func register(_ token: String) async -> Bool {
        do {
            let reply = try await client.registerLiveActivityToken(token)
            guard reply.isSuccess else {
                logger.warning("relay refused a Live Activity token registration; it is tried again before the next push",
                               ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
                return false
            }
            try await store.markRegistered(relayURL: client.baseURL, token: token, kind: Self.kind)
            return true
        } catch {
            logger.warning("Live Activity token registration did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["token": Redact.token(token), "error": "\(error)"])
            return false
        }
    }
}
