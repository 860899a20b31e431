import Foundation
import PushgateCore

/// Waits until the host's outbox holds nothing (`outbox.depth` 0 in `GET /api/status`,
/// docs/host.md, "Outbox"): the fault suite before its tally, the soak after its load.
public struct OutboxDrain: Sendable {
    /// The outbox object of the last status read.
    public let outbox: JSONValue
    /// Its depth: 0 unless the wait ran out.
    public let depth: Int64
    /// How long the wait took.
    public let seconds: Double

    /// Reads the outbox (`readOutbox`: the `outbox` object of `GET /api/status` and its depth)
    /// every `interval` until the depth is 0, or for `seconds` at most.
    public static func wait(within seconds: Double, every interval: Duration,
                            readOutbox: @Sendable () async throws -> (outbox: JSONValue, depth: Int64)) async throws -> OutboxDrain {
        let started = ContinuousClock.now
        while true {
            let (outbox, depth) = try await readOutbox()
            let elapsed = started.duration(to: .now)
            if depth == 0 || elapsed >= .seconds(seconds) {
                return OutboxDrain(outbox: outbox, depth: depth,
                                   seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            }
            try await Task.sleep(for: interval)
        }
    }

    /// A table cell: how long the outbox took to empty, or that it did not.
    public var cell: String {
        depth == 0 ? "\(String(format: "%.1f", seconds)) s" : "**not after \(Int(seconds)) s (\(depth) left)**"
    }
}
