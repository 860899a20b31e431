import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateHTTP

/// An Orca-compatible gateway host over HTTP: the handshake with the host checks of
/// protocol/gateway.md §2.9, then bearer requests that run the handshake again once on a 401.
/// The session token may be kept in a file (mode 0600) between runs.
final class GatewayHostClient: Sendable {
    let baseURL: String
    let answerer: HostChallengeAnswerer
    private let sessionFile: String?
    private let http = HTTP1Client()

    /// A host with `keyPair` talking to `baseURL`, which binds `origin` into its challenges.
    init(baseURL: String, origin: String, keyPair: BoxKeyPair, sessionFile: String?) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        answerer = HostChallengeAnswerer(keyPair: keyPair, gatewayOrigin: origin)
        self.sessionFile = sessionFile
    }

    deinit { http.shutdown() }

    /// Finishes with the HTTP client's worker threads; the tool calls it before it exits, as an
    /// exit while a worker still releases its libcurl handle would race libcurl's teardown.
    func shutdown() { http.shutdown() }

    /// Challenge, host checks, proof, session. The session answer; its token is saved when a
    /// session file was given. A failed host check is thrown by name only.
    @discardableResult
    func handshake() async throws -> (reply: HTTPClientReply, sessionToken: String?) {
        let challengeReply = try await post("/v1/host/challenge", answerer.challengeRequest)
        guard challengeReply.status == 200 else { return (challengeReply, nil) }
        let challenge = try GatewayChallenge(json: try Self.json(challengeReply))
        let proof = try answerer.answer(challenge, nowMs: SystemClock().nowMilliseconds)
        let sessionReply = try await post("/v1/host/session", answerer.sessionRequest(challengeId: challenge.challengeId, proof: proof))
        guard sessionReply.status == 200 else { return (sessionReply, nil) }
        let token = try answerer.acceptSession(try Self.json(sessionReply)).sessionToken
        if let sessionFile {
            unlink(sessionFile)
            try ToolFile.createSecret(sessionFile, contents: Array(token.utf8))
        }
        return (sessionReply, token)
    }

    /// Posts `body` with the saved session (or a fresh one); on a 401 runs the handshake again once.
    func authenticated(_ path: String, _ body: JSONValue) async throws -> HTTPClientReply {
        var token = savedToken()
        if token == nil {
            let (reply, fresh) = try await handshake()
            guard let fresh else { return reply }
            token = fresh
        }
        let reply = try await post(path, body, bearer: token)
        guard reply.status == 401 else { return reply }
        let (handshakeReply, fresh) = try await handshake()
        guard let fresh else { return handshakeReply }
        return try await post(path, body, bearer: fresh)
    }

    private func savedToken() -> String? {
        guard let sessionFile, let data = FileManager.default.contents(atPath: sessionFile) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    private func post(_ path: String, _ body: JSONValue, bearer: String? = nil) async throws -> HTTPClientReply {
        var headers = [("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return try await http.post(baseURL + path, headers: headers, body: body.serializedBytes())
    }

    private static func json(_ reply: HTTPClientReply) throws -> JSONValue {
        guard let json = try? JSONValue.parse(reply.body) else { throw HostCheckFailure.responseShape }
        return json
    }
}
