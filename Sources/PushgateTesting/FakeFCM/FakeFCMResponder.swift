import PushgateCore

/// The fake FCM's request logic on its I/O thread: `POST /token` goes to the OAuth verifier and
/// is granted a token unless refused or scripted to fail; everything else goes to the send
/// validator and the token's script. Each request is counted and recorded.
final class FakeFCMResponder: FakeServerResponder {
    typealias State = FakeProviderState<FakeFCMScript, FakeFCMRecord, FakeFCMBooks>

    static let tokenPath = "/token"
    private static let jsonHeaders = [(name: "content-type", value: "application/json; charset=UTF-8")]

    private let state: State
    private let assertions: OAuthAssertionVerifier
    private let messages: FCMMessageValidator
    private let clock: any WallClock
    private let lifetimeSeconds: Int

    init(state: State, credentials: FakeFCM.Credentials?, clock: any WallClock, lifetimeSeconds: Int) {
        self.state = state
        assertions = OAuthAssertionVerifier(credentials: credentials, clock: clock)
        messages = FCMMessageValidator(projectId: credentials?.projectId)
        self.clock = clock
        self.lifetimeSeconds = lifetimeSeconds
    }

    func respond(to request: FakeHTTP2Request) -> FakeServerReply {
        if Self.isExchange(request) {
            switch assertions.check(request) {
            case .success: return exchange(request, refusal: nil)
            case .failure(let refusal): return exchange(request, refusal: refusal)
            }
        }
        return send(request, verdict: messages.validate(request, isAuthorized: isAuthorized))
    }

    func recordReset(of request: FakeHTTP2Request) {
        guard !Self.isExchange(request) else {
            state.recordReset(count: { $0.counters.tokenRequests += 1 }, record: {
                FakeFCMRecord(kind: .tokenExchange, method: request.method, path: request.path, headers: request.headers,
                              status: 0, error: nil, fcmErrorCode: nil, projectId: nil, deviceToken: nil, message: nil, reset: true)
            })
            return
        }
        // Validated only for what the record holds: the project, the token and the message.
        let verdict = messages.validate(request, isAuthorized: isAuthorized)
        state.recordReset(count: { $0.counters.sendRequests += 1 }, record: {
            FakeFCMRecord(kind: .send, method: request.method, path: request.path, headers: request.headers, status: 0,
                          error: nil, fcmErrorCode: nil, projectId: verdict.projectId, deviceToken: verdict.deviceToken,
                          message: verdict.message, reset: true)
        })
    }

    /// Whether `request` is an OAuth exchange (everything else is judged as a send).
    private static func isExchange(_ request: FakeHTTP2Request) -> Bool {
        request.method == "POST" && request.path == tokenPath
    }

    /// Whether `accessToken` was issued here and has not expired (by the configured clock).
    private func isAuthorized(_ accessToken: String) -> Bool {
        let now = clock.nowMilliseconds
        return state.withBooks { ($0.accessTokens[accessToken] ?? .min) > now }
    }

    /// Answers an exchange: a refusal from the verifier or a scripted failure, else a new token.
    private func exchange(_ request: FakeHTTP2Request, refusal: OAuthAssertionVerifier.Refusal?) -> FakeServerReply {
        let now = clock.nowMilliseconds
        let lifetimeSeconds = lifetimeSeconds
        return state.decide(scriptToken: nil) { _, books in
            books.counters.tokenRequests += 1
            let status: Int
            let body: JSONObject
            var error: String?
            if let failure = books.tokenFailureStatus {
                (status, error) = (failure, "internal_failure")
                body = JSONObject([("error", "internal_failure"), ("error_description", "Scripted failure.")])
            } else if let refusal {
                (status, error) = (400, refusal.error)
                body = JSONObject([("error", .string(refusal.error)), ("error_description", .string(refusal.description))])
            } else {
                books.accessTokens = books.accessTokens.filter { $0.value > now }
                let value = "ya29.fake." + Hex.encode(SecureRandom.bytes(16))
                books.accessTokens[value] = now + Int64(lifetimeSeconds) * 1000
                books.counters.tokensIssued += 1
                status = 200
                body = JSONObject([("access_token", .string(value)), ("expires_in", .integer(Int64(lifetimeSeconds))),
                                   ("token_type", "Bearer")])
            }
            let response = FakeHTTP2Response(status: status, headers: Self.jsonHeaders, body: JSONValue.object(body).serializedBytes())
            return (FakeServerReply(response: response, delayMilliseconds: 0), {
                FakeFCMRecord(kind: .tokenExchange, method: request.method, path: request.path, headers: request.headers,
                              status: status, error: error, fcmErrorCode: nil, projectId: nil, deviceToken: nil, message: nil,
                              reset: false)
            })
        }
    }

    /// Applies the token's script to a validated send.
    private func send(_ request: FakeHTTP2Request, verdict: FCMMessageValidator.Verdict) -> FakeServerReply {
        state.decide(scriptToken: verdict.error == nil ? verdict.deviceToken : nil) { script, books in
            let error = if let script { script.error } else { verdict.error }
            let status = error?.status ?? 200
            books.counters.sendRequests += 1
            books.counters.sendsByStatus[status, default: 0] += 1
            let body: [UInt8]
            if let error {
                body = error.body
            } else {
                books.messagesAccepted += 1
                let name = "projects/\(verdict.projectId ?? "")/messages/\(books.messagesAccepted)"
                body = JSONValue.object(JSONObject([("name", .string(name))])).serializedBytes()
            }
            var headers = Self.jsonHeaders
            if let seconds = script?.retryAfterSeconds { headers.append(("retry-after", String(seconds))) }
            let response = FakeHTTP2Response(status: status, headers: headers, body: body)
            return (FakeServerReply(response: response, delayMilliseconds: script?.delayMilliseconds ?? 0), {
                FakeFCMRecord(kind: .send, method: request.method, path: request.path, headers: request.headers, status: status,
                              error: error?.errorStatus, fcmErrorCode: error?.fcmErrorCode, projectId: verdict.projectId,
                              deviceToken: verdict.deviceToken, message: verdict.message, reset: false)
            })
        }
    }
}
