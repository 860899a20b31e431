import Foundation
import PushgateCore
import PushgateHTTP

/// A host's client for a signed relay (`protocol/signed-relay.md`): builds, signs and posts requests.
///
/// - Important: the base URL may also be given as the `…/v1/push/send` URL; the other
///   endpoints are derived from it (protocol/host-api.md §5).
public final class SignedRelayClient: Sendable {
    /// A transport or protocol failure before any relay answer.
    public struct TransportError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The relay origin and path prefix, without a trailing `/`.
    public let baseURL: String
    /// The host's signing key.
    public var key: P256PrivateKey { signer.key }
    private let signer: RelayRequestSigner
    private let clock: any WallClock
    private let http: HTTP1Client
    /// Whether `baseURL` parses with a host; checked once, as the endpoints only append a path.
    private let baseURLIsValid: Bool

    /// `eventLoop`: where the relay's answers are read (see ``HTTP1Client``); by default a loop of the client's own.
    public init(baseURL: String, key: P256PrivateKey, clock: any WallClock = SystemClock(), timeoutSeconds: Double = 15,
                eventLoop: EpollEventLoop? = nil) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/v1/push/send") { base.removeLast("/v1/push/send".count) }
        self.baseURL = base
        baseURLIsValid = URL(string: base + "/v1/push/send")?.host != nil
        signer = RelayRequestSigner(key: key)
        self.clock = clock
        var configuration = HTTP1Client.Configuration()
        configuration.timeoutMs = Int(timeoutSeconds * 1000)
        configuration.maxConnections = 16
        http = HTTP1Client(configuration: configuration, eventLoop: eventLoop)
    }

    /// `platform`: `ios` (an APNs token) or `android` (an FCM token), as the token was bound.
    public func registerToken(_ token: String, platform: String = "ios") async throws -> RelayReply {
        try await post("register-token", signer.registerToken(token, platform: platform, ts: clock.nowMilliseconds))
    }

    public func unregisterToken(_ token: String, platform: String = "ios") async throws -> RelayReply {
        try await post("unregister-token", signer.unregisterToken(token, platform: platform, ts: clock.nowMilliseconds))
    }

    public func registerLiveActivityToken(_ token: String) async throws -> RelayReply {
        try await post("register-live-activity-token", signer.liveActivityToken(token, ts: clock.nowMilliseconds))
    }

    public func unregisterLiveActivityToken(_ token: String) async throws -> RelayReply {
        try await post("unregister-live-activity-token", signer.liveActivityToken(token, ts: clock.nowMilliseconds))
    }

    /// Binds a push-to-start token (**extension**: `kind` `start`).
    public func registerLiveActivityStartToken(_ token: String) async throws -> RelayReply {
        try await post("register-live-activity-token", signer.liveActivityStartToken(token, ts: clock.nowMilliseconds))
    }

    public func unregisterLiveActivityStartToken(_ token: String) async throws -> RelayReply {
        try await post("unregister-live-activity-token", signer.liveActivityStartToken(token, ts: clock.nowMilliseconds))
    }

    public func send(tokens: [String], title: String, body: String? = nil, badge: Int64? = nil,
                     collapseId: String? = nil, environment: String? = nil,
                     data: [(key: String, value: String)] = [], attention: AlertAttention = .none) async throws -> RelayReply {
        try await post("send", signer.send(tokens: tokens, title: title, body: body, badge: badge, collapseId: collapseId,
                                           environment: environment, data: data, attention: attention, ts: clock.nowMilliseconds))
    }

    public func background(tokens: [String], collapseIds: [String], environment: String? = nil) async throws -> RelayReply {
        try await post("background", signer.background(tokens: tokens, collapseIds: collapseIds, environment: environment,
                                                       ts: clock.nowMilliseconds))
    }

    /// An update or end, or with `start` a push-to-start (its push's event `start`).
    public func liveActivity(_ push: LiveActivityPush, start: LiveActivityStart? = nil, environment: String? = nil,
                             priority: Int? = nil) async throws -> RelayReply {
        try await post("live-activity", signer.liveActivity(push, start: start, environment: environment, priority: priority,
                                                            ts: clock.nowMilliseconds))
    }

    /// Posts an already-built body (also used to resend a captured request).
    public func post(_ endpoint: String, _ body: [UInt8]) async throws -> RelayReply {
        guard baseURLIsValid else { throw TransportError(description: "relay URL is not valid: \(baseURL)") }
        do {
            let reply = try await http.post("\(baseURL)/v1/push/\(endpoint)", headers: [("content-type", "application/json")], body: body)
            return RelayReply(status: reply.status, body: reply.body)
        } catch let error as HTTPClientError {
            throw TransportError(description: error.description)
        }
    }
}
