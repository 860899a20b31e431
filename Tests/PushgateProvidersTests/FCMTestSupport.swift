import Foundation
@testable import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateTesting

/// A fake FCM and an FCM client for the `rs256-oauth.json` account that trusts it, on one
/// manual clock, with the client's logs kept in memory.
final class FCMFakeFixture: Sendable {
    static let vectorRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/vectors/rs256-oauth.json")

    let fake: FakeFCM
    let client: FCMClient
    let clock: ManualClock
    let logs = Logger.MemorySink()
    private let caFilePath: String

    /// The vector's service account, with `change` applied to its JSON.
    static func account(_ change: (inout JSONObject) -> Void = { _ in }) throws -> ServiceAccount {
        var object = try JSONValue.parse(Array(try Data(contentsOf: vectorRoot)))["serviceAccount"]!.objectValue!
        change(&object)
        return try ServiceAccount(object: object)
    }

    /// `clientAccount` defaults to the account the fake knows.
    init(clientAccount: ServiceAccount? = nil) throws {
        let account = try Self.account()
        clock = ManualClock(milliseconds: 1_764_669_600_000)
        var fakeConfiguration = FakeFCM.Configuration()
        fakeConfiguration.credentials = try FakeFCM.Credentials(account: account)
        fakeConfiguration.clock = clock
        fake = try FakeFCM(configuration: fakeConfiguration)
        caFilePath = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-fcm-ca-\(UUID().uuidString).pem").path
        try fake.certificatePEM.write(toFile: caFilePath, atomically: true, encoding: .utf8)
        let configuration = FCMConfiguration(account: clientAccount ?? account, origin: HTTP2Origin(host: "127.0.0.1", port: fake.port),
                                             tokenURI: fake.tokenURI, extraCAFile: caFilePath)
        client = try FCMClient(configuration: configuration, clock: clock,
                               logger: Logger(component: "test", minimumLevel: .debug, sink: logs))
    }

    deinit {
        fake.stop()
        try? FileManager.default.removeItem(atPath: caFilePath)
    }

    static func relay(_ token: String) -> FCMMessage { FCMMessage.relay(token: token, envelope: "QUJDRA==", ttlSeconds: 3600) }

    /// Sends every message at once; outcomes in the same order.
    func sendAll(_ messages: [FCMMessage]) async -> [HapiPushOutcome] {
        await withTaskGroup(of: (Int, HapiPushOutcome).self) { group in
            for (index, message) in messages.enumerated() {
                group.addTask { [client] in (index, await client.send(message)) }
            }
            var outcomes = [HapiPushOutcome](repeating: .sent, count: messages.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}
