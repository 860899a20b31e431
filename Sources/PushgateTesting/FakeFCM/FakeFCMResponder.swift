import PushgateCore

/// The fake FCM's request logic on its I/O thread: `POST /token` goes to the OAuth verifier,
/// everything else to the send validator.
final class FakeFCMResponder: FakeServerResponder {
    static let tokenPath = "/token"

    private let state: FakeFCMState
    private let assertions: OAuthAssertionVerifier
    private let messages: FCMMessageValidator

    init(state: FakeFCMState, credentials: FakeFCM.Credentials?, clock: any WallClock) {
        self.state = state
        assertions = OAuthAssertionVerifier(credentials: credentials, clock: clock)
        messages = FCMMessageValidator(projectId: credentials?.projectId)
    }

    func respond(to request: FakeHTTP2Request) -> FakeServerReply {
        if request.method == "POST" && request.path == Self.tokenPath {
            let refusal: OAuthAssertionVerifier.Refusal?
            switch assertions.check(request) {
            case .success: refusal = nil
            case .failure(let reason): refusal = reason
            }
            return state.decideExchange(request, refusal: refusal).reply
        }
        let state = self.state
        return state.decideSend(request, verdict: messages.validate(request, isAuthorized: state.isAuthorized)).reply
    }
}
