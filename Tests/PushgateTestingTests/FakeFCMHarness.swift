import Foundation
import PushgateCore
import PushgateHTTP
import PushgateTesting

/// A running fake FCM that knows the `rs256-oauth.json` service account, plus an HTTP/2 client
/// pool that trusts its certificate, all on one manual clock at the vector's `iat`.
final class FakeFCMHarness: Sendable {
    static let issuedAt: Int64 = 1_764_669_600

    let fake: FakeFCM
    let pool: HTTP2ClientPool
    let origin: HTTP2Origin
    let clock: ManualClock
    let account: ServiceAccount
    let vectorJWT: String
    /// The fake's certificate, for clients besides ``pool``.
    let caFile: URL

    init(_ configure: (inout FakeFCM.Configuration) -> Void = { _ in }) throws {
        let vector = try TestFixtures.object("vectors/rs256-oauth.json")
        account = try ServiceAccount(object: vector["serviceAccount"]!.objectValue!)
        vectorJWT = vector["expectedJwt"]!.stringValue!
        clock = ManualClock(milliseconds: Self.issuedAt * 1000)
        var configuration = FakeFCM.Configuration()
        configuration.credentials = try FakeFCM.Credentials(account: account)
        configuration.clock = clock
        configure(&configuration)
        fake = try FakeFCM(configuration: configuration)
        caFile = FileManager.default.temporaryDirectory.appendingPathComponent("fake-fcm-\(UUID().uuidString).pem")
        try fake.certificatePEM.write(to: caFile, atomically: true, encoding: .utf8)
        pool = try HTTP2ClientPool(configuration: HTTP2ClientConfiguration(extraCAFile: caFile.path),
                                   logger: Logger(component: "test", minimumLevel: .error))
        origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
    }

    deinit {
        fake.stop()
        try? FileManager.default.removeItem(at: caFile)
    }

    /// Exchanges `assertion` at the fake's token endpoint.
    func exchange(_ assertion: String, grantType: String = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer",
                  contentType: String = "application/x-www-form-urlencoded") async throws -> HTTP2Response {
        try await pool.send(HTTP2Request(origin: origin, path: "/token", headers: [HTTP2Header("content-type", contentType)],
                                         body: Array("grant_type=\(grantType)&assertion=\(assertion)".utf8)))
    }

    /// A fresh access token for the vector account.
    func accessToken() async throws -> String {
        let response = try await exchange(vectorJWT)
        guard let token = (try JSONValue.parse(response.body))["access_token"]?.stringValue else { throw CocoaError(.coderValueNotFound) }
        return token
    }

    /// Sends `body` (a JSON text) to `messages:send` of `project` with `accessToken`.
    func send(_ body: String, accessToken: String?, project: String = "pushgate-test") async throws -> HTTP2Response {
        var headers = [HTTP2Header("content-type", "application/json")]
        if let accessToken { headers.append(HTTP2Header("authorization", "Bearer " + accessToken)) }
        return try await pool.send(HTTP2Request(origin: origin, path: "/v1/projects/\(project)/messages:send", headers: headers,
                                                body: Array(body.utf8)))
    }

    /// A relay-shaped message to `token`, with `data` members as given.
    static func message(token: String = "fcm-token-1", data: String = #"{"hapi_v":"1","hapi_e":"QUJD"}"#,
                        android: String = #"{"priority":"HIGH","restricted_package_name":"run.hapi.companion"}"#) -> String {
        #"{"message":{"token":"\#(token)","data":\#(data),"android":\#(android)}}"#
    }
}

extension HTTP2Response {
    /// `error.status`, FcmError `errorCode` and violation fields of a Google error body.
    var googleError: (status: String?, code: String?, fields: [String]) {
        let error = (try? JSONValue.parse(body))?["error"]
        let details = error?["details"]?.arrayValue ?? []
        let code = details.lazy.compactMap { $0["errorCode"]?.stringValue }.first
        let fields = details.flatMap { ($0["fieldViolations"]?.arrayValue ?? []).compactMap { $0["field"]?.stringValue } }
        return (error?["status"]?.stringValue, code, fields)
    }
}
