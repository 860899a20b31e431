import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateCore

/// The host's API as a hub and a phone use it, over loopback HTTP.
struct HostClient: Sendable {
    /// A status and its JSON body.
    struct Answer: Sendable {
        let status: Int
        let body: JSONValue
    }

    let port: UInt16
    let accessToken: String
    /// Longer than the host's own wait for the relay (15 s), so the host always answers first.
    static let timeoutSeconds: Double = 30

    /// Registers a device token as a phone does.
    func register(token: String) async throws {
        _ = try Self.expect200(await call("POST", "/api/push/apns-token", .object(JSONObject([("token", .string(token))]))),
                           "POST /api/push/apns-token")
    }

    /// Posts `event` and returns the host's answer, whatever its status; throws only when none
    /// came (the connection failed).
    func post(_ event: FaultEvent) async throws -> Answer {
        try await call("POST", "/api/events", event.body)
    }

    /// `GET /api/status`.
    func status() async throws -> JSONValue {
        try Self.expect200(await call("GET", "/api/status", nil), "GET /api/status")
    }

    /// The `outbox` object of `GET /api/status` and its depth, for ``OutboxDrain``.
    func outbox() async throws -> (outbox: JSONValue, depth: Int64) {
        let status = try await status()
        guard let outbox = status["outbox"], let depth = outbox["depth"]?.int64Value else {
            throw UnexpectedAnswer(description: "GET /api/status has no outbox depth: \(status.serialized())")
        }
        return (outbox, depth)
    }

    private static func expect200(_ answer: Answer, _ what: String) throws -> JSONValue {
        guard answer.status == 200 else {
            throw UnexpectedAnswer(description: "\(what): status \(answer.status): \(answer.body.serialized())")
        }
        return answer.body
    }

    private func call(_ method: String, _ path: String, _ body: JSONValue?) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: Self.timeoutSeconds)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.serializedBytes()) }
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard let parsed = try? JSONValue.parse(Array(data)) else {
            throw UnexpectedAnswer(description: "\(method) \(path): status \(status), not JSON: \(String(decoding: data, as: UTF8.self))")
        }
        return Answer(status: status, body: parsed)
    }
}
