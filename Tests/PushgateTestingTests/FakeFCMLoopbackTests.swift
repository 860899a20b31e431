import Foundation
import PushgateCore
import PushgateHTTP
import PushgateTesting
import Testing
import PushgateTestSupport

/// The fake FCM over real TLS + HTTP/2 on loopback: the OAuth endpoint, the send checks, the
/// scripts and the records.
@Suite(.hangLimit(.minutes(1))) struct FakeFCMLoopbackTests {
    @Test func theVectorAssertionIsGrantedAnAccessTokenThatSends() async throws {
        let harness = try FakeFCMHarness()
        let grant = try await harness.exchange(harness.vectorJWT)
        #expect(grant.status == 200)
        let json = try JSONValue.parse(grant.body)
        #expect(json["expires_in"] == .integer(3599))
        #expect(json["token_type"] == "Bearer")
        let accessToken = try #require(json["access_token"]?.stringValue)
        let sent = try await harness.send(FakeFCMHarness.message(), accessToken: accessToken)
        #expect(sent.status == 200)
        #expect((try JSONValue.parse(sent.body))["name"] == "projects/pushgate-test/messages/1")
        let records = harness.fake.requests
        #expect(records.map(\.kind) == [.tokenExchange, .send])
        #expect(records[1].deviceToken == "fcm-token-1")
        #expect(records[1].message?["data"]?["hapi_e"] == "QUJD")
        #expect(records[1].projectId == "pushgate-test")
        #expect(!records[1].recordLine().contains(accessToken))
        #expect(records[1].recordLine().contains(#""authorization":"[redacted]""#))
        #expect(harness.fake.counters.tokensIssued == 1)
    }

    @Test func assertionsAreCheckedLikeGoogle() async throws {
        let harness = try FakeFCMHarness()
        let pieces = harness.vectorJWT.split(separator: ".").map(String.init)
        let otherAudience = try OAuthAssertion.make(account: try ServiceAccount(object: {
            var object = try TestFixtures.object("vectors/rs256-oauth.json")["serviceAccount"]!.objectValue!
            object["token_uri"] = "https://example.com/token"
            return object
        }()), issuedAt: FakeFCMHarness.issuedAt)
        let refusals: [(String, String, String, String)] = [
            (pieces[0] + "." + pieces[1] + "." + String(pieces[2].reversed()), "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer",
             "application/x-www-form-urlencoded", "invalid_grant"),
            (otherAudience, "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", "application/x-www-form-urlencoded", "invalid_grant"),
            (harness.vectorJWT, "client_credentials", "application/x-www-form-urlencoded", "unsupported_grant_type"),
            (harness.vectorJWT, "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", "application/json", "invalid_request"),
        ]
        for (assertion, grant, type, error) in refusals {
            let response = try await harness.exchange(assertion, grantType: grant, contentType: type)
            #expect(response.status == 400)
            #expect((try JSONValue.parse(response.body))["error"] == .string(error))
        }
        // An hour after iat the vector assertion has expired.
        harness.clock.advance(milliseconds: 3_600_000)
        #expect(try await harness.exchange(harness.vectorJWT).status == 400)
        #expect(harness.fake.counters.tokensIssued == 0)
        #expect(harness.fake.counters.tokenRequests == 5)
    }

    @Test func sendsNeedALiveAccessTokenForTheServedProject() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        #expect(try await harness.send(FakeFCMHarness.message(), accessToken: nil).googleError.status == "UNAUTHENTICATED")
        #expect(try await harness.send(FakeFCMHarness.message(), accessToken: "ya29.guess").status == 401)
        let otherProject = try await harness.send(FakeFCMHarness.message(), accessToken: accessToken, project: "someone-else")
        #expect(otherProject.status == 404)
        #expect(otherProject.googleError.status == "NOT_FOUND")
        #expect(otherProject.googleError.code == nil)
        // Issued tokens live 3599 s by the fake's clock; revocation ends them at once.
        harness.clock.advance(milliseconds: 3_598_000)
        #expect(try await harness.send(FakeFCMHarness.message(), accessToken: accessToken).status == 200)
        harness.fake.revokeAccessTokens()
        #expect(try await harness.send(FakeFCMHarness.message(), accessToken: accessToken).status == 401)
        let fresh = try await harness.accessToken()
        harness.clock.advance(milliseconds: 3_599_000)
        #expect(try await harness.send(FakeFCMHarness.message(), accessToken: fresh).status == 401)
    }

    @Test func messageShapeAndTheDataLimit() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        // hapi_v (6) + "1" (1) + hapi_e (6) + value: 4096 bytes in all fits, one more does not.
        let fits = String(repeating: "A", count: 4096 - 13)
        #expect(try await harness.send(FakeFCMHarness.message(data: #"{"hapi_v":"1","hapi_e":"\#(fits)"}"#), accessToken: accessToken).status == 200)
        let tooBig = try await harness.send(FakeFCMHarness.message(data: #"{"hapi_v":"1","hapi_e":"\#(fits)A"}"#), accessToken: accessToken)
        #expect(tooBig.status == 400)
        #expect(tooBig.googleError.status == "INVALID_ARGUMENT")
        #expect(tooBig.googleError.fields == ["message.data"])
        let cases: [(String, String)] = [
            (FakeFCMHarness.message(data: #"{"n":1}"#), "message.data[n]"),
            (FakeFCMHarness.message(data: #"{"google.x":"1"}"#), "message.data"),
            (FakeFCMHarness.message(android: #"{"priority":"URGENT"}"#), "message.android.priority"),
            (FakeFCMHarness.message(android: #"{"direct_boot_ok":"yes"}"#), "message.android.direct_boot_ok"),
            (FakeFCMHarness.message(android: #"{"colapse_key":"x"}"#), "message.android.colapse_key"),
            (#"{"message":{"data":{}}}"#, "message"),
            (#"{"message":{"token":"t","notifcation":{}}}"#, "message.notifcation"),
            (#"{"msg":{}}"#, "msg"),
            ("not json", "message"),
        ]
        for (body, field) in cases {
            let response = try await harness.send(body, accessToken: accessToken)
            #expect(response.status == 400, "\(body)")
            #expect(response.googleError.fields == [field], "\(body)")
        }
    }

    @Test func scriptsAnswerPerRegistrationToken() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        let table: [(FakeFCMError, Int, String, String?)] = [
            (.unregistered, 404, "NOT_FOUND", "UNREGISTERED"), (.invalidToken, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
            (.quotaExceeded, 429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"), (.unavailable, 503, "UNAVAILABLE", "UNAVAILABLE"),
            (.internalError, 500, "INTERNAL", "INTERNAL"), (.senderIdMismatch, 403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
        ]
        for (index, row) in table.enumerated() { harness.fake.script(token: "t\(index)", FakeFCMScript(row.0)) }
        for (index, row) in table.enumerated() {
            let response = try await harness.send(FakeFCMHarness.message(token: "t\(index)"), accessToken: accessToken)
            #expect(response.status == row.1)
            #expect(response.googleError.status == row.2)
            #expect(response.googleError.code == row.3)
        }
        #expect(try await harness.send(FakeFCMHarness.message(token: "t0"), accessToken: accessToken).status == 404)
        #expect(try await harness.send(FakeFCMHarness.message(token: "t0"), accessToken: nil).status == 401, "scripts apply to valid sends only")
        #expect(try await harness.send(FakeFCMHarness.message(token: "t1"), accessToken: accessToken).googleError.fields == ["message.token"])
        harness.fake.clearScripts()
        #expect(try await harness.send(FakeFCMHarness.message(token: "t0"), accessToken: accessToken).status == 200)
        harness.fake.failTokenExchanges(status: 503)
        #expect(try await harness.exchange(harness.vectorJWT).status == 503)
        harness.fake.failTokenExchanges(status: nil)
        #expect(try await harness.exchange(harness.vectorJWT).status == 200)
        #expect(harness.fake.counters.sendsByStatus[404] == 2)
    }
}
