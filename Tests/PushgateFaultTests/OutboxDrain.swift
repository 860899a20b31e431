import PushgateCore

/// Waits until the host's outbox holds nothing (`outbox.depth` 0 in `GET /api/status`,
/// docs/host.md, "Outbox"), so the tally counts what the host will ever deliver.
struct OutboxDrain: Sendable {
    /// How often the status is read.
    static let pollInterval: Duration = .milliseconds(100)

    /// The outbox object of the last status read.
    let outbox: JSONValue
    /// Its depth: 0 unless the wait ran out.
    let depth: Int64
    /// How long the wait took.
    let seconds: Double

    /// Reads the status until the depth is 0, or for `seconds` at most.
    static func wait(_ client: HostClient, within seconds: Double) async throws -> OutboxDrain {
        let started = ContinuousClock.now
        while true {
            let status = try await client.status()
            guard let outbox = status["outbox"], let depth = outbox["depth"]?.int64Value else {
                throw UnexpectedAnswer(description: "GET /api/status has no outbox depth: \(status.serialized())")
            }
            let elapsed = started.duration(to: .now)
            if depth == 0 || elapsed >= .seconds(seconds) {
                return OutboxDrain(outbox: outbox, depth: depth,
                                   seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            }
            try await Task.sleep(for: pollInterval)
        }
    }

    /// The table's cell: how long the outbox took to empty, or that it did not.
    var cell: String {
        depth == 0 ? "\(String(format: "%.1f", seconds)) s" : "**not after \(Int(seconds)) s (\(depth) left)**"
    }
}
