import Foundation
import PushgateCore

/// A fake FCM ready for a relay's (or a host's) Android lane to point at: it knows one service
/// account, ages assertions and access tokens by the test's clock, and the account's key file
/// and the fake's certificate are written into a directory.
public struct FakeFCMFixture: Sendable {
    public let fake: FakeFCM
    /// The `PUSHGATE_RELAY_FCM_*` settings that point a relay at the fake.
    public let relayEnvironment: [String: String]

    /// Starts the fake for `account` (a service account key file's object) on `clock`, and
    /// writes the key file and the certificate into `directory` (created when missing).
    public init(account: JSONObject, clock: any WallClock, directory: String) throws {
        var configuration = FakeFCM.Configuration()
        configuration.credentials = try FakeFCM.Credentials(account: ServiceAccount(object: account))
        configuration.clock = clock
        fake = try FakeFCM(configuration: configuration)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let accountPath = directory + "/service-account.json"
        let caFile = directory + "/fake-fcm-ca.pem"
        try JSONValue.object(account).serialized().write(toFile: accountPath, atomically: true, encoding: .utf8)
        try fake.writeCertificate(to: caFile)
        relayEnvironment = fake.relayEnvironment(serviceAccountPath: accountPath, caFile: caFile)
    }
}
