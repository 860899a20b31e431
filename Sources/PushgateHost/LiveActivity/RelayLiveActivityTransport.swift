import PushgateCore
import PushgateProviders

/// Delivers Live Activity pushes through the signed relay (`/v1/push/live-activity`),
/// registering each token on the relay (`register-live-activity-token`) before its first push
/// and repairing lost bindings (``RelayRegistrations``, kind `liveactivity`, and `start` for
/// push-to-start tokens).
///
/// - Important: docs/relay.md "Live Activity"; docs/host.md "Lost and aging bindings" — registrations are cached by
///   (relay URL, token, kind) and run at most 16 at a time; a replaced, evicted or expired token
///   is unregistered with a signed request.
public struct RelayLiveActivityTransport: LiveActivityTransport {
    public var name: String { "relay" }
    private let client: SignedRelayClient
    private let registrations: RelayRegistrations
    private let startRegistrations: RelayRegistrations
    private let logger: Logger

    /// `clock` dates the cached registrations' refresh and the repair holds.
    public init(client: SignedRelayClient, store: HostStore, clock: any WallClock, logger: Logger) {
        self.client = client
        self.logger = logger.named("live-activity-relay")
        registrations = RelayRegistrations(kind: .liveActivity, client: client, store: store, clock: clock, logger: self.logger)
        startRegistrations = RelayRegistrations(kind: .liveActivityStart, client: client, store: store, clock: clock, logger: self.logger)
    }

    public func prepare(_ tokens: [String], kind: LiveActivityTokenKind) async -> Set<String> {
        await registrations(kind).prepare(tokens)
    }

    public func bind(_ token: String, kind: LiveActivityTokenKind) async { _ = await registrations(kind).register(token) }

    public func unbind(_ token: String, kind: LiveActivityTokenKind) async {
        await forget([token], kind: kind)
        await registrations(kind).unregister(token)
    }

    public func forget(_ tokens: [String], kind: LiveActivityTokenKind) async { await registrations(kind).forget(tokens) }

    public func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome] {
        await registrations.deliver(push.tokens) { tokens in
            guard tokens != push.tokens else { return await send(push, environment: environment, priority: priority) }
            // A retry after a repair: the same push for fewer tokens, as valid as the whole one.
            guard let retry = try? LiveActivityPush(tokens: tokens, event: push.event, contentState: push.contentState,
                                                    dismissalDate: push.dismissalDate, staleDate: push.staleDate) else { return nil }
            return await send(retry, environment: environment, priority: priority)
        }
    }

    public func start(_ push: LiveActivityPush, start: LiveActivityStart, environment: String) async -> TokenOutcome {
        guard await !prepare(push.tokens, kind: .start).isEmpty else { return .failed(.later) }
        // A start names one token: a repair sends the same push again.
        let outcomes = await startRegistrations.deliver(push.tokens) { _ in
            await send(push, start: start, environment: environment, priority: LiveActivityContent.urgentPriority)
        }
        return outcomes.values.first ?? .failed(.later)
    }

    private func registrations(_ kind: LiveActivityTokenKind) -> RelayRegistrations {
        switch kind {
        case .activity: registrations
        case .start: startRegistrations
        }
    }

    /// One signed Live Activity request; nil when it did not reach the relay.
    private func send(_ push: LiveActivityPush, start: LiveActivityStart? = nil, environment: String,
                      priority: Int) async -> RelayReply? {
        do {
            let reply = try await client.liveActivity(push, start: start, environment: environment, priority: priority)
            if !reply.isSuccess {
                logger.warning("relay refused a Live Activity push; its tokens are tried again on a later change",
                               ["event": push.event.rawValue, "tokens": "\(push.tokens.count)", "status": "\(reply.status)",
                                "error": reply.errorCode ?? ""])
            }
            return reply
        } catch {
            logger.warning("Live Activity push did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["tokens": "\(push.tokens.count)", "error": "\(error)"])
            return nil
        }
    }
}
