import Testing
import PushgateCore

/// The register-family bodies a host signs: `platform` in the body and in the signed message
/// (docs/host.md, "Android alert tokens").
@Suite struct RelayRequestSignerTests {
    @Test func registerAndUnregisterSignTheTokensPlatform() throws {
        let key = P256PrivateKey()
        let signer = RelayRequestSigner(key: key)
        let token = "phone:APA91b" + String(repeating: "x", count: 40)
        let cases: [(body: [UInt8], platform: String, message: String)] = [
            (try signer.registerToken(token, platform: "android", ts: 1_764_669_600_000), "android",
             SignedMessage.registerToken(ts: 1_764_669_600_000, token: token, platform: "android")),
            (try signer.unregisterToken(token, platform: "android", ts: 1_764_669_600_001), "android",
             "1764669600001.\(token).android.unregister"),
            (try signer.registerToken("ab", ts: 1_764_669_600_002), "ios", "1764669600002.ab.ios"),
        ]
        for (body, platform, message) in cases {
            let json = try JSONValue.parse(body)
            #expect(json["platform"] == .string(platform))
            let signature = try #require(json["sig"]?.stringValue.flatMap { try? Base64URL.decode($0) })
            #expect(key.publicKey.verify(signature: signature, message: Array(message.utf8)), "\(message)")
        }
    }
}
