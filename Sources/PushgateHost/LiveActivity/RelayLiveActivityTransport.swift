import PushgateCore
import PushgateProviders

/// Delivers Live Activity pushes through the signed relay (`/v1/push/live-activity`),
/// registering each token on the relay (`register-live-activity-token`) before its first push.
///
/// - Important: relay-protocol.md §3 and §5; host.md §5–§6 — registrations are cached by
///   (relay URL, token, kind `liveactivity`) and run at most 16 at a time; a replaced, evicted
///   or expired token is unregistered with a signed request.
public struct RelayLiveActivityTransport: LiveActivityTransport {
    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let store: HostStore
    private let registrations: RelayRegistrations
    private let logger: Logger

    public init(client: SignedRelayClient, store: HostStore, logger: Logger) {
        self.client = client
        self.store = store
        self.logger = logger.named("live-activity-relay")
        registrations = RelayRegistrations(kind: .liveActivity, client: client, store: store, logger: self.logger)
    }

    public func prepare(_ tokens: [String]) async -> Set<String> { await registrations.prepare(tokens) }

    public func unbind(_ token: String) async {
        await forget([token])
        await registrations.unregister(token)
    }

    public func forget(_ tokens: [String]) async {
        for token in tokens {
            do {
                try await store.forgetRegistration(token: token, kind: RelayRegistrations.Kind.liveActivity.rawValue)
            } catch {
                logger.error("could not update the relay registration cache in host.sqlite", ["error": "\(error)"])
            }
        }
    }

    public func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome] {
        do {
            let reply = try await client.liveActivity(push, environment: environment, priority: priority)
            if !reply.isSuccess {
                logger.warning("relay refused a Live Activity push; its tokens are tried again on the next change or tick",
                               ["tokens": "\(push.tokens.count)", "status": "\(reply.status)", "error": reply.errorCode ?? ""])
            }
            return RelayRegistrations.outcomes(push.tokens, reply)
        } catch {
            logger.warning("Live Activity push did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["tokens": "\(push.tokens.count)", "error": "\(error)"])
            return RelayRegistrations.outcomes(push.tokens, nil)
        }
    }
}
