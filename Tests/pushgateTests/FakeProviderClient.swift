import Foundation
import PushgateCore
import PushgateHTTP

/// A plain HTTP/2 client for a `pushgate-dev fake-apns` or `fake-fcm` child process, trusting its
/// certificate: tests see statuses, headers and stream failures as they are, with no provider
/// client's retries in between.
struct FakeProviderClient: Sendable {
    let pool: HTTP2ClientPool
    let origin: HTTP2Origin

    /// Every request's deadline, so a test never waits on the fake longer than this.
    static let timeoutMilliseconds: Int64 = 10_000

    init(port: UInt16, caFile: String) throws {
        pool = try HTTP2ClientPool(configuration: HTTP2ClientConfiguration(extraCAFile: caFile),
                                   logger: Logger(component: "test", minimumLevel: .error))
        origin = HTTP2Origin(host: "127.0.0.1", port: port)
    }

    /// Sends an alert for `token` that a fake APNs without `--p8` accepts (its provider token
    /// is checked for form and age only).
    func apnsAlert(token: String) async throws -> HTTP2Response {
        let jwt = APNsProviderToken.make(key: P256PrivateKey(), keyId: "ABC123DEFG", teamId: "TEAM123456",
                                         issuedAt: SystemClock().nowMilliseconds / 1000)
        return try await send(path: "/3/device/\(token)", headers: [
            HTTP2Header("authorization", "bearer \(jwt)"), HTTP2Header("apns-topic", "dev.pushgate.test"),
            HTTP2Header("apns-push-type", "alert"),
        ], body: #"{"aps":{"alert":{"title":"T"}}}"#)
    }

    /// Exchanges an assertion of `account` for an access token at the fake FCM.
    func fcmAccessToken(account: ServiceAccount) async throws -> String {
        let assertion = try OAuthAssertion.make(account: account, issuedAt: SystemClock().nowMilliseconds / 1000)
        let response = try await send(path: "/token", headers: [HTTP2Header("content-type", "application/x-www-form-urlencoded")],
                                      body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)")
        guard let token = (try JSONValue.parse(response.body))["access_token"]?.stringValue else {
            throw HTTP2ClientError(.protocolError, detail: "no access token in \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return token
    }

    /// Sends a relay-shaped message to `token` at the fake FCM's `pushgate-test` project.
    func fcmSend(token: String, accessToken: String) async throws -> HTTP2Response {
        try await send(path: "/v1/projects/pushgate-test/messages:send",
                       headers: [HTTP2Header("content-type", "application/json"), HTTP2Header("authorization", "Bearer \(accessToken)")],
                       body: #"{"message":{"token":"\#(token)","data":{"hapi_v":"1","hapi_e":"QUJD"}}}"#)
    }

    /// What became of a request, compactly: its status, `reset` (RST_STREAM) or `lost` (connection closed).
    static func outcome(_ send: () async throws -> HTTP2Response) async -> String {
        do {
            return String(try await send().status)
        } catch let error as HTTP2ClientError where error.kind == .streamReset {
            return "reset"
        } catch let error as HTTP2ClientError where error.kind == .connectionLost {
            return "lost"
        } catch {
            return "\(error)"
        }
    }

    func shutdown() async { await pool.shutdown() }

    private func send(path: String, headers: [HTTP2Header], body: String) async throws -> HTTP2Response {
        var request = HTTP2Request(origin: origin, path: path, headers: headers, body: Array(body.utf8))
        request.timeoutMilliseconds = Self.timeoutMilliseconds
        return try await pool.send(request)
    }
}
