import Foundation
import PushgateCore
import Testing
import PushgateTestSupport

/// Orca-style hosts (`pushgate gateway`) → the relay's gateway → fake APNs, the real binaries,
/// with the relay killed (SIGKILL) while its coalescing windows are open and started again on
/// the same database (docs/gateway.md "Coalescing and delivery"). Unlike the host chain's
/// scenarios, which report losses, this one asserts that every send was answered, every
/// notification `queued`, and each reached the fake (the outbox keeps them across the kill),
/// a duplicate only under the collapse id of its first copy.
@Suite(.serialized, .hangLimit(FaultSizes.current.timeLimit)) struct GatewayFaultTests {
    /// Phones per host; each host sends at most 60 notifications an hour (docs/gateway.md), so
    /// 15 each to 4 phones.
    static let phonesPerHost = 4
    static let notificationsPerHost = 15
    /// As many phones as the host chain's scenarios have devices, at least two hosts.
    static var hosts: Int { max(2, FaultSizes.current.devices / phonesPerHost) }

    @Test func relayKilledWithOpenWindows() async throws {
        let chain = try await GatewayChain.start()
        do {
            var hosts: [GatewayBurst.Host] = []
            for index in 0 ..< Self.hosts {
                let keyFile = try await chain.newHost("host-\(index)")
                var phones: [(registrationId: String, token: String)] = []
                for phone in 0 ..< Self.phonesPerHost {
                    let token = Hex.encode(SecureRandom.bytes(32))
                    let outcome = try await chain.gateway("register", host: keyFile, ["--device-id", "phone-\(phone)", "--token", token,
                                                                                       "--env", "sandbox"])
                    guard let id = try GatewayAnswer.json(outcome.stdout)["registrationId"]?.stringValue else {
                        throw UnexpectedAnswer(description: "register: \(outcome.stdout) \(outcome.stderr)")
                    }
                    phones.append((id, token))
                }
                hosts.append(GatewayBurst.Host(keyFile: keyFile, phones: phones))
            }
            let sends = try await GatewayBurst.post(hosts, notificationsPerHost: Self.notificationsPerHost, chain: chain) {
                try await chain.restartRelay()
            }
            let scenario = "gateway relay kill -9 with open windows, restarted"
            let recordFile = await chain.recordFile
            let tally = try await Self.waitForDeliveries {
                try GatewayDeliveryTally(scenario: scenario, recordFile: recordFile, hosts: hosts, sends: sends)
            }
            try FaultTable.append(row: tally.row)
            #expect(tally.relayOk == tally.expected, "every notification answered queued (within the hour quota)")
            #expect(await chain.relayLog.contains("windows taken over"), "the restarted relay rebuilt open windows")
            #expect(tally.okButMissing == 0 && tally.lost == 0, "notifications the relay answered queued that the fake never answered 200")
            #expect(tally.mixedCollapseIds == 0, "a notification delivered twice went under two collapse ids")
            try await chain.stop()
        } catch {
            await chain.abandon()
            throw error
        }
    }

    /// The tally once every notification answered `queued` is covered, or after 30 s (windows
    /// last 2 s; retries after a failed attempt start at 1 s). Reads the record file every 100 ms.
    private static func waitForDeliveries(_ tally: () throws -> GatewayDeliveryTally) async throws -> GatewayDeliveryTally {
        var current = try tally()
        for _ in 0 ..< 300 where current.okButMissing > 0 {
            try await Task.sleep(for: .milliseconds(100))
            current = try tally()
        }
        return current
    }
}
