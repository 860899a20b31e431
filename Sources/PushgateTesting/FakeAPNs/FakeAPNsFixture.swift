import Foundation
import PushgateCore

/// A fake APNs ready for a relay or host test to point at: it trusts a fresh provider key (key
/// id ``keyId``, team ``teamId``), ages tokens by the test's clock, and its certificate is
/// written to ``caFile`` for the client's extra-CA setting.
public struct FakeAPNsFixture: Sendable {
    public static let keyId = "KEYID12345"
    public static let teamId = "TEAMID1234"

    public let fake: FakeAPNs
    /// The provider key the fake trusts (the relay or host signs with it).
    public let key: P256PrivateKey
    public let caFile: String

    /// Starts the fake on `clock`, calling `onRequest` for every request it decides, and writes
    /// its certificate into `directory` (created when missing).
    public init(clock: any WallClock, directory: String, onRequest: (@Sendable (RecordedRequest) -> Void)? = nil) throws {
        key = P256PrivateKey()
        var configuration = FakeAPNs.Configuration()
        configuration.credentials = .init(publicKey: key.publicKey, keyId: Self.keyId, teamId: Self.teamId)
        configuration.clock = clock
        configuration.onRequest = onRequest
        fake = try FakeAPNs(configuration: configuration)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        caFile = directory + "/fake-apns-ca.pem"
        try fake.writeCertificate(to: caFile)
    }

    /// The `PUSHGATE_RELAY_*` settings of a relay sending to the fake as `bundleId`, its
    /// database at `databasePath`.
    public func relayEnvironment(bundleId: String, databasePath: String) throws -> [String: String] {
        try fake.relayEnvironment(apnsKey: key, keyId: Self.keyId, teamId: Self.teamId, bundleId: bundleId, caFile: caFile,
                                  databasePath: databasePath)
    }

    /// The `PUSHGATE_APNS_*` settings of a host sending to the fake directly as `bundleId`: the
    /// relay's APNs settings without the relay prefix.
    public func hostEnvironment(bundleId: String) throws -> [String: String] {
        var environment: [String: String] = [:]
        for (name, value) in try relayEnvironment(bundleId: bundleId, databasePath: "") where name.hasPrefix("PUSHGATE_RELAY_APNS_") {
            environment["PUSHGATE_" + name.dropFirst("PUSHGATE_RELAY_".count)] = value
        }
        return environment
    }
}
