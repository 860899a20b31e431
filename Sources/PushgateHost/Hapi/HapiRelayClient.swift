import PushgateCore
import PushgateHTTP
import PushgateProviders
import Synchronization

/// The host's client for `POST {pushRelayUrl}/v1/push`, hapi's relay protocol: one envelope
/// for one device per request, no authentication.
///
/// - Important: protocol/hapi-push.md §7 (host side) — URL = base without trailing `/` + `/v1/push`;
///   `Content-Type: application/json` and no auth header; 10 s for the whole request;
///   200 with `ok === true` → sent, 410 with `ok === false` and `code === "unregistered"` →
///   dead, anything else (other statuses, non-JSON bodies, network errors, timeouts) → failed,
///   with no retry. Only the status code is logged, never the body.
public final class HapiRelayClient: Sendable {
    /// The whole-request deadline.
    public static let timeoutSeconds: Double = 10
    /// The priority the host sends in v1.
    public static let priority: Int64 = 10

    /// The platform member of a request.
    public enum Platform: String, Sendable {
        case ios, android
    }

    /// How long the relay's answer to "does it take `interruptionLevel`" is kept.
    static let extensionsMaxAge: Duration = .seconds(600)

    /// `<base>/v1/push`.
    public let pushURL: String
    /// `<base>/healthz`, where a Pushgate relay lists its extensions.
    let healthURL: String
    private let http: HTTP1Client
    private let logger: Logger
    /// Whether the relay announced `interruptionLevel` (the asking, which concurrent pushes
    /// share), and when it was asked.
    private let announced = Mutex<(askedAt: ContinuousClock.Instant, level: Task<Bool, Never>)?>(nil)

    /// `timeoutSeconds` other than the default is for tests only; `eventLoop`: where the answers
    /// are read (the host's loop), by default a loop of the client's own.
    public init(baseURL: String, timeoutSeconds: Double = HapiRelayClient.timeoutSeconds, logger: Logger,
                eventLoop: EpollEventLoop? = nil) {
        pushURL = Self.pushURL(base: baseURL)
        healthURL = String(pushURL.dropLast("/v1/push".count)) + "/healthz"
        self.logger = logger.named("hapi-relay")
        var configuration = HTTP1Client.Configuration()
        configuration.timeoutMs = Int(timeoutSeconds * 1000)
        configuration.maxConnections = 16
        http = HTTP1Client(configuration: configuration, eventLoop: eventLoop)
    }

    /// The request URL for a relay base URL (trailing `/` removed; a signed-relay `…/v1/push/send`
    /// URL is accepted too, as protocol/host-api.md §5 allows for the same setting).
    public static func pushURL(base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/v1/push/send") { base.removeLast("/send".count) } else { base += "/v1/push" }
        return base
    }

    /// The request body: `platform`, `token`, `envelope`, `collapseId` (iOS only, when
    /// non-empty), `priority` 10, and the Pushgate extension `interruptionLevel` when given.
    public static func body(platform: Platform, token: String, envelope: String, collapseId: String?,
                            level: AlertAttention.Level? = nil) -> [UInt8] {
        var object = JSONObject([("platform", .string(platform.rawValue)), ("token", .string(token)), ("envelope", .string(envelope))])
        if platform == .ios, let collapseId, !collapseId.isEmpty { object["collapseId"] = .string(collapseId) }
        object["priority"] = .integer(priority)
        if let level { object["interruptionLevel"] = .string(level.rawValue) }
        return JSONValue.object(object).serializedBytes()
    }

    /// Posts one envelope and classifies the answer. Never throws. `level` is sent only to a
    /// relay that announces the extension (docs/hapi.md, "Interruption level"): hapi's own relay
    /// keeps today's body.
    public func push(platform: Platform, token: String, envelope: String, collapseId: String?,
                     level: AlertAttention.Level? = nil) async -> HapiPushOutcome {
        var sentLevel: AlertAttention.Level?
        if let level, await announcesLevel() { sentLevel = level }
        let body = Self.body(platform: platform, token: token, envelope: envelope, collapseId: collapseId, level: sentLevel)
        let outcome: HapiPushOutcome
        do {
            let reply = try await http.post(pushURL, headers: [("Content-Type", "application/json")], body: body)
            let status = reply.status
            outcome = Self.classify(status: status, body: reply.body)
            if outcome != .sent {
                logger.info("hapi relay did not accept a push", ["platform": platform.rawValue, "token": Redact.token(token),
                                                                 "status": "\(status)", "outcome": outcome.label])
            }
        } catch {
            // A timed-out request may have been delivered; one that failed otherwise was not answered at all.
            let timedOut = (error as? HTTPClientError)?.timedOut ?? false
            outcome = .failed(reason: "network error or timeout", failure: timedOut ? .unanswered : .notSent)
            logger.warning("hapi relay push did not complete (network error or 10 s timeout); check pushRelayUrl",
                           ["platform": platform.rawValue, "token": Redact.token(token)])
        }
        return outcome
    }

    /// Whether the relay's `/healthz` lists `interruptionLevel` in `extensions`; asked at most
    /// once every ``extensionsMaxAge``, the pushes of a fan-out sharing one asking (an unreachable
    /// or older relay: no).
    func announcesLevel() async -> Bool {
        let now = ContinuousClock.now
        let asking = announced.withLock { known in
            if let known, now - known.askedAt < Self.extensionsMaxAge { return known.level }
            let asking = Task { [http, healthURL] () -> Bool in
                guard let reply = try? await http.get(healthURL), reply.status == 200,
                      let extensions = (try? JSONValue.parse(reply.body))?["extensions"]?.arrayValue else { return false }
                return extensions.contains(.string("interruptionLevel"))
            }
            known = (now, asking)
            return asking
        }
        return await asking.value
    }

    /// The outcome of a relay answer. For the host's outbox (docs/host.md, "Outbox"): 429 is a
    /// throttle, 500/503/504 mean the push was not taken, and 502 (the relay's provider failed
    /// after its own retries, perhaps with no answer) may have been delivered.
    static func classify(status: Int, body: [UInt8]) -> HapiPushOutcome {
        let object = (status == 200 || status == 410) ? (try? JSONValue.parse(body))?.objectValue : nil
        if status == 200 && object?["ok"] == .bool(true) { return .sent }
        if status == 410 && object?["ok"] == .bool(false) && object?["code"] == .string("unregistered") {
            return .dead(reason: "unregistered")
        }
        let failure: ProviderFailure = switch status {
        case 429: .throttled(retryAfterSeconds: nil)
        case 500, 503, 504: .unavailable(retryAfterSeconds: nil)
        case 502: .unanswered
        default: .rejected
        }
        return .failed(reason: "HTTP \(status)", failure: failure)
    }
}
