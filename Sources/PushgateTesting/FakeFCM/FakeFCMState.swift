import PushgateCore
import Synchronization

/// What the fake FCM's I/O thread and its callers share, behind one lock: scripts, issued
/// access tokens, records and counters.
final class FakeFCMState: Sendable {
    /// The final answer for one request, decided under the lock.
    struct Decision {
        let reply: FakeServerReply
        let record: FakeFCMRecord?
    }

    private struct Shared {
        var scripts: [String: FakeFCMScript] = [:]
        var accessTokens: [String: Int64] = [:]
        var tokenFailureStatus: Int?
        var records: [FakeFCMRecord] = []
        var counters = FakeFCMCounters()
        var messagesAccepted = 0
    }

    private static let jsonHeaders = [(name: "content-type", value: "application/json; charset=UTF-8")]

    private let shared = Mutex(Shared())
    private let keepsRecords: Bool
    private let observer: (@Sendable (FakeFCMRecord) -> Void)?
    private let clock: any WallClock
    private let lifetimeSeconds: Int

    init(keepsRecords: Bool, observer: (@Sendable (FakeFCMRecord) -> Void)?, clock: any WallClock, lifetimeSeconds: Int) {
        self.keepsRecords = keepsRecords
        self.observer = observer
        self.clock = clock
        self.lifetimeSeconds = lifetimeSeconds
    }

    // MARK: Callers

    func setScript(_ script: FakeFCMScript?, for token: String) { shared.withLock { $0.scripts[token] = script } }
    func clearScripts() { shared.withLock { $0.scripts.removeAll() } }
    func setTokenFailure(status: Int?) { shared.withLock { $0.tokenFailureStatus = status } }
    func revokeAccessTokens() { shared.withLock { $0.accessTokens.removeAll() } }
    var records: [FakeFCMRecord] { shared.withLock { $0.records } }
    func clearRecords() { shared.withLock { $0.records.removeAll() } }
    var counters: FakeFCMCounters { shared.withLock { $0.counters } }

    // MARK: I/O loop

    /// Whether `accessToken` was issued here and has not expired (by the configured clock).
    func isAuthorized(_ accessToken: String) -> Bool {
        let now = clock.nowMilliseconds
        return shared.withLock { ($0.accessTokens[accessToken] ?? .min) > now }
    }

    /// Answers an exchange: a refusal from the verifier or a scripted failure, else a new token.
    func decideExchange(_ request: FakeHTTP2Request, refusal: OAuthAssertionVerifier.Refusal?) -> Decision {
        let now = clock.nowMilliseconds
        let decision = shared.withLock { state -> Decision in
            state.counters.tokenRequests += 1
            let status: Int
            let body: JSONObject
            var error: String?
            if let failure = state.tokenFailureStatus {
                (status, error) = (failure, "internal_failure")
                body = JSONObject([("error", "internal_failure"), ("error_description", "Scripted failure.")])
            } else if let refusal {
                (status, error) = (400, refusal.error)
                body = JSONObject([("error", .string(refusal.error)), ("error_description", .string(refusal.description))])
            } else {
                state.accessTokens = state.accessTokens.filter { $0.value > now }
                let value = "ya29.fake." + Hex.encode(SecureRandom.bytes(16))
                state.accessTokens[value] = now + Int64(lifetimeSeconds) * 1000
                state.counters.tokensIssued += 1
                status = 200
                body = JSONObject([("access_token", .string(value)), ("expires_in", .integer(Int64(lifetimeSeconds))),
                                   ("token_type", "Bearer")])
            }
            let record = makeRecord(&state, FakeFCMRecord(
                kind: .tokenExchange, method: request.method, path: request.path, headers: request.headers, status: status,
                error: error, fcmErrorCode: nil, projectId: nil, deviceToken: nil, message: nil))
            let response = FakeHTTP2Response(status: status, headers: Self.jsonHeaders, body: JSONValue.object(body).serializedBytes())
            return Decision(reply: FakeServerReply(response: response, delayMilliseconds: 0), record: record)
        }
        if let observer, let record = decision.record { observer(record) }
        return decision
    }

    /// Applies the token's script to a validated send, counts and records it.
    func decideSend(_ request: FakeHTTP2Request, verdict: FCMMessageValidator.Verdict) -> Decision {
        let decision = shared.withLock { state -> Decision in
            var error = verdict.error
            var delay = 0
            if error == nil, let token = verdict.deviceToken, let script = state.scripts[token] {
                error = script.error
                delay = script.delayMilliseconds
            }
            let status = error?.status ?? 200
            state.counters.sendRequests += 1
            state.counters.sendsByStatus[status, default: 0] += 1
            let body: [UInt8]
            if let error {
                body = error.body
            } else {
                state.messagesAccepted += 1
                let name = "projects/\(verdict.projectId ?? "")/messages/\(state.messagesAccepted)"
                body = JSONValue.object(JSONObject([("name", .string(name))])).serializedBytes()
            }
            let record = makeRecord(&state, FakeFCMRecord(
                kind: .send, method: request.method, path: request.path, headers: request.headers, status: status,
                error: error?.errorStatus, fcmErrorCode: error?.fcmErrorCode, projectId: verdict.projectId,
                deviceToken: verdict.deviceToken, message: verdict.message))
            let response = FakeHTTP2Response(status: status, headers: Self.jsonHeaders, body: body)
            return Decision(reply: FakeServerReply(response: response, delayMilliseconds: delay), record: record)
        }
        if let observer, let record = decision.record { observer(record) }
        return decision
    }

    /// Keeps `record` when records are kept; hands it back when anyone wants it.
    private func makeRecord(_ state: inout Shared, _ record: @autoclosure () -> FakeFCMRecord) -> FakeFCMRecord? {
        guard keepsRecords || observer != nil else { return nil }
        let made = record()
        if keepsRecords { state.records.append(made) }
        return made
    }
}
