import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// One scenario: its own chain, devices registered through the host's API, the burst with its
/// fault, then the tally from the fake's record file. Asserts only that every push the relay
/// answered ok reached the fake, and that no process ended on its own and all stop cleanly;
/// losses are reported in the table row, not asserted.
struct FaultScenario {
    let name: String
    /// The fake's fault flags (`--goaway-after-streams 50`, …).
    var fakeFlags: [String] = []
    /// The fake's `--script`, made from the device tokens.
    var script: (@Sendable ([String]) -> JSONValue)?
    /// What happens mid-burst (``Burst``), given the chain.
    var fault: (@Sendable (DeliveryChain) async throws -> Void)?

    func run(_ sizes: FaultSizes = .current) async throws {
        let devices = (0..<sizes.devices).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        let chain = try await DeliveryChain.start(fakeFlags: fakeFlags, script: script?(devices))
        do {
            for token in devices { try await chain.client.register(token: token) }
            let fault = self.fault.map { fault in { @Sendable in try await fault(chain) } }
            let accepted = try await Burst.post((0..<sizes.events).map(FaultEvent.init(index:)), window: sizes.window,
                                                to: chain.client, fault: fault)
            let tally = try DeliveryTally(scenario: name, recordFile: await chain.recordFile, devices: devices.count,
                                          accepted: accepted)
            try FaultTable.append(tally)
            #expect(tally.okButMissing == 0, "pushes the relay answered ok that the fake never answered 200")
            try await chain.stop()
        } catch {
            await chain.abandon()
            throw error
        }
    }
}
