import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// One scenario: its own chain, devices registered through the host's API, the burst with its
/// fault posted through the hub, the wait for the host's outbox to empty, then the tally from
/// the fake's record file. Asserts that every event the host answered 2xx reached every device
/// (lost 0), that a push delivered twice carried one collapse id both times, that every push the
/// relay answered ok reached the fake, and that no process ended on its own and all stop cleanly.
struct FaultScenario {
    let name: String
    /// The fake's fault flags (`--goaway-after-streams 50`, …).
    var fakeFlags: [String] = []
    /// The fake's `--script`, made from the device tokens.
    var script: (@Sendable ([String]) -> JSONValue)?
    /// The relay's PostgreSQL database; nil: a SQLite file.
    var relayDatabaseURL: String?
    /// The host's home on a small disk the fault fills (``HostStoreDisk``).
    var smallHostDisk = false
    /// Whether the fault must make the hub post events again (503 `store_unavailable`, a
    /// connection lost to a restart of the host): else the scenario did not test what it names.
    var expectsReposts = false
    /// Whether the fault must make the host write pushes to its outbox (the relay's 503
    /// `dependency_unavailable`, which the host queues): else the fault had no effect.
    var expectsQueued = false
    /// What happens mid-burst (``Burst``), given the chain.
    var fault: (@Sendable (DeliveryChain) -> BurstFault)?

    func run(_ sizes: FaultSizes = .current) async throws {
        let devices = (0..<sizes.devices).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        let chain = try await DeliveryChain.start(fakeFlags: fakeFlags, script: script?(devices), relayDatabaseURL: relayDatabaseURL,
                                                  smallHostDisk: smallHostDisk)
        do {
            for token in devices { try await chain.client.register(token: token) }
            let outcomes = try await Burst.post((0..<sizes.events).map(FaultEvent.init(index:)), window: sizes.window,
                                                through: await chain.hub, fault: fault?(chain))
            let client = chain.client
            let drain = try await OutboxDrain.wait(within: sizes.drainSeconds, every: .milliseconds(100), readOutbox: client.outbox)
            let scenario = name + (chain.hostDisk.map { " (\($0.kind.rawValue))" } ?? "")
            let tally = try DeliveryTally(scenario: scenario, recordFile: await chain.recordFile, devices: devices.count,
                                          outcomes: outcomes, drain: drain)
            try FaultTable.append(tally)
            #expect(drain.depth == 0, "the host's outbox still holds entries after the wait: \(drain.outbox.serialized())")
            #expect(tally.lost == 0, "pushes of events the host answered 2xx that never reached the fake")
            #expect(tally.duplicatesNotCollapsing.isEmpty, "pushes delivered twice without one collapse id: \(tally.duplicatesNotCollapsing)")
            #expect(!expectsReposts || tally.reposts > 0, "the fault never made the hub post an event again")
            #expect(!expectsQueued || tally.queued > 0, "the fault never made the host queue a push")
            #expect(tally.okButMissing == 0, "pushes the relay answered ok that the fake never answered 200")
            try await chain.stop()
        } catch {
            await chain.abandon()
            throw error
        }
    }
}
