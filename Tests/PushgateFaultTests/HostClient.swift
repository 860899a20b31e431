import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateCore

/// The host's API as a hub and a phone use it, over loopback HTTP.
struct HostClient: Sendable {
    let port: UInt16
    let accessToken: String
    /// Longer than the host's own wait for the relay (15 s), so the host always answers first.
    static let timeoutSeconds: Double = 30

    /// Registers a device token as a phone does.
    func register(token: String) async throws {
        _ = try await call("/api/push/apns-token", .object(JSONObject([("token", .string(token))])))
    }

    /// Posts `event`; how many pushes the relay answered ok (the dispatch result's `accepted`).
    func post(_ event: FaultEvent) async throws -> Int {
        let result = try await call("/api/events", event.body)
        guard result["eventId"]?.stringValue == event.eventId, let accepted = result["accepted"]?.int64Value else {
            throw UnexpectedAnswer(description: "POST /api/events: unexpected dispatch result \(result.serialized())")
        }
        return Int(accepted)
    }

    private func call(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: Self.timeoutSeconds)
        request.httpMethod = "POST"
        request.httpBody = Data(body.serializedBytes())
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw UnexpectedAnswer(description: "POST \(path): status \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONValue.parse(Array(data))
    }
}
