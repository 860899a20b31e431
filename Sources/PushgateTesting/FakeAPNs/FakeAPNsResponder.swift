import PushgateCore

/// The fake APNs' request logic on its I/O thread: validate as APNs does (provider tokens
/// through one verdict cache for the whole server), pick the `apns-id`, apply the token's script,
/// count and record.
final class FakeAPNsResponder: FakeServerResponder {
    typealias State = FakeProviderState<ScriptedResponse, RecordedRequest, FakeAPNsCounters>

    private let state: State
    private let validator = APNsRequestValidator()
    private let verifier: ProviderTokenVerifier
    private let clock: any WallClock
    private var apnsIds = APNsIdGenerator()

    init(state: State, credentials: FakeAPNs.ProviderCredentials?, clock: any WallClock) {
        self.state = state
        verifier = ProviderTokenVerifier(credentials: credentials, clock: clock)
        self.clock = clock
    }

    func respond(to request: FakeHTTP2Request) -> FakeServerReply {
        let verdict = validator.validate(request, checkProviderToken: verifier.check)
        let apnsId = self.apnsId(for: request)
        return state.decide(scriptToken: verdict.status == 200 ? verdict.deviceToken : nil) { script, counters in
            let (status, reason) = if let script { (script.status, script.reason) } else { (verdict.status, verdict.reason) }
            counters.requests += 1
            counters.byStatus[status, default: 0] += 1
            let timestamp = status == 410 ? clock.nowMilliseconds : 0
            let response = FakeAPNsResponse(status: status, reason: reason, apnsId: apnsId, timestampMilliseconds: timestamp,
                                            retryAfterSeconds: script?.retryAfterSeconds)
            return (FakeServerReply(response: response.http, delayMilliseconds: script?.delayMilliseconds ?? 0), {
                RecordedRequest(method: request.method, path: request.path, headers: request.headers, payload: verdict.payload,
                                status: status, reason: reason, deviceToken: verdict.deviceToken, apnsId: apnsId, reset: false)
            })
        }
    }

    func recordReset(of request: FakeHTTP2Request) {
        // Validated only for what the record holds: the device token and the payload.
        let verdict = validator.validate(request, checkProviderToken: verifier.check)
        let apnsId = self.apnsId(for: request)
        state.recordReset(count: { $0.requests += 1 }, record: {
            RecordedRequest(method: request.method, path: request.path, headers: request.headers, payload: verdict.payload,
                            status: 0, reason: nil, deviceToken: verdict.deviceToken, apnsId: apnsId, reset: true)
        })
    }

    /// The request's own `apns-id` when it is a UUID, else a new one.
    private func apnsId(for request: FakeHTTP2Request) -> String {
        request.header("apns-id").flatMap { APNsRequestValidator.isUUID($0) ? $0 : nil } ?? apnsIds.next()
    }
}

/// Makes `apns-id` values for requests that did not send one: UUID-shaped, unique per server,
/// and cheap (a random prefix and a counter, not a random UUID per request).
struct APNsIdGenerator {
    private let prefix: String
    private var counter: UInt64 = 0

    init() {
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        prefix = String(repeating: "0", count: 8 - random.count) + random
    }

    mutating func next() -> String {
        counter += 1
        let digits = String(counter & 0xFFFF_FFFF_FFFF, radix: 16)
        return prefix + "-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }
}
