import Foundation
@testable import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateTesting

/// A fake APNs and an APNs client that trusts it, with its logs kept in memory.
final class APNsFakeFixture: Sendable {
    static let bundleId = "com.example.app"

    let fake: FakeAPNs
    let client: APNsClient
    let key = P256PrivateKey()
    let logs = Logger.MemorySink()
    private let caFilePath: String

    init(fakeClock: any WallClock = SystemClock(), clientClock: any WallClock = SystemClock(), maxConcurrentStreams: Int = 1000,
         certificate: SelfSignedCertificate? = nil, configure: (inout APNsConfiguration) -> Void = { _ in }) throws {
        var fakeConfiguration = FakeAPNs.Configuration()
        fakeConfiguration.clock = fakeClock
        fakeConfiguration.certificate = certificate
        fakeConfiguration.maxConcurrentStreams = maxConcurrentStreams
        fake = try FakeAPNs(configuration: fakeConfiguration)
        caFilePath = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-ca-\(UUID().uuidString).pem").path
        try fake.writeCertificate(to: caFilePath)
        let origin = HTTP2Origin(host: "127.0.0.1", port: fake.port)
        var configuration = APNsConfiguration(privateKey: key, keyId: "KEY1234567", teamId: "TEAM123456",
                                              productionOrigin: origin, sandboxOrigin: origin, extraCAFile: caFilePath)
        configure(&configuration)
        client = try APNsClient(configuration: configuration, clock: clientClock,
                                logger: Logger(component: "test", minimumLevel: .debug, sink: logs))
    }

    deinit {
        fake.stop()
        try? FileManager.default.removeItem(atPath: caFilePath)
    }

    /// A 64-hex-digit device token derived from `index`.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    static let payload = Array(#"{"aps":{"alert":{"title":"Build finished"},"sound":"default"}}"#.utf8)

    func alert(_ index: Int, collapseId: String? = nil) throws -> APNsNotification {
        try APNsNotification.alert(deviceToken: Self.token(index), bundleId: Self.bundleId, payload: Self.payload, collapseId: collapseId)
    }

    /// Sends every notification at once; outcomes in the same order.
    func sendAll(_ notifications: [APNsNotification], environment: APNsEnvironment = .production) async -> [APNsOutcome] {
        await withTaskGroup(of: (Int, APNsOutcome).self) { group in
            for (index, notification) in notifications.enumerated() {
                group.addTask { [client] in (index, await client.send(notification, environment: environment)) }
            }
            var outcomes = [APNsOutcome](repeating: .delivered, count: notifications.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    /// The provider tokens (JWTs) the fake received, in order.
    var receivedJWTs: [String] {
        fake.requests.compactMap { $0.header("authorization").map { String($0.dropFirst("bearer ".count)) } }
    }

    /// The JWTs the fake received for one device token, in order.
    func receivedJWTs(for deviceToken: String) -> [String] {
        fake.requests.filter { $0.deviceToken == deviceToken }.compactMap { $0.header("authorization").map { String($0.dropFirst("bearer ".count)) } }
    }
}
