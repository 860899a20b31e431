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
        let apnsId = request.header("apns-id").flatMap { APNsRequestValidator.isUUID($0) ? $0 : nil } ?? apnsIds.next()
        return state.decide { scripts, counters in
            var status = verdict.status
            var reason = verdict.reason
            var delay = 0
            if status == 200, let token = verdict.deviceToken, let script = scripts[token] {
                status = script.status
                reason = script.reason
                delay = script.delayMilliseconds
            }
            counters.requests += 1
            counters.byStatus[status, default: 0] += 1
            let timestamp = status == 410 ? clock.nowMilliseconds : 0
            let response = FakeAPNsResponse(status: status, reason: reason, apnsId: apnsId, timestampMilliseconds: timestamp)
            return (FakeServerReply(response: response.http, delayMilliseconds: delay), {
                RecordedRequest(method: request.method, path: request.path, headers: request.headers, payload: verdict.payload,
                                status: status, reason: reason, deviceToken: verdict.deviceToken, apnsId: apnsId)
            })
        }
    }
}
