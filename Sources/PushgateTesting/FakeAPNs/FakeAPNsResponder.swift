import PushgateCore

/// The fake APNs' request logic on its I/O thread: validate as APNs does (provider tokens
/// through one verdict cache for the whole server), pick the `apns-id`, apply the token's script.
final class FakeAPNsResponder: FakeServerResponder {
    private let state: FakeAPNsState
    private let validator = APNsRequestValidator()
    private let verifier: ProviderTokenVerifier
    private var apnsIds = APNsIdGenerator()

    init(state: FakeAPNsState, credentials: FakeAPNs.ProviderCredentials?, clock: any WallClock) {
        self.state = state
        verifier = ProviderTokenVerifier(credentials: credentials, clock: clock)
    }

    func respond(to request: FakeHTTP2Request) -> FakeServerReply {
        let verdict = validator.validate(request, checkProviderToken: verifier.check)
        let apnsId = request.header("apns-id").flatMap { APNsRequestValidator.isUUID($0) ? $0 : nil } ?? apnsIds.next()
        let decision = state.decide(request, verdict: verdict, apnsId: apnsId)
        return FakeServerReply(response: decision.response.http, delayMilliseconds: decision.delayMilliseconds)
    }
}
