import Foundation
import PushgateCore
import PushgateTesting

/// A scenario's figures: what the fake APNs recorded, by (device token, `eventId` in the
/// payload's data) with status 200, against the pushes expected — one per device for every
/// event the host answered 2xx, in the end, to the hub — and those the relay answered ok at once.
struct DeliveryTally: Sendable {
    let scenario: String
    let events: Int
    /// One push per device per event.
    let expected: Int
    /// Pushes accepted at once, by the host's 2xx dispatch results.
    let relayOk: Int
    /// Pushes the host wrote to its outbox, by the same results.
    let queued: Int
    /// Events the hub posted again (503 `store_unavailable`, a connection lost to a restart).
    let reposts: Int
    /// Distinct (token, eventId) pairs the fake answered 200.
    let delivered: Int
    /// 200s beyond the first for the same pair.
    let duplicates: Int
    /// Pairs delivered more than once under different (or no) `apns-collapse-id`s: copies a
    /// phone would show twice.
    let duplicatesNotCollapsing: [String]
    /// Pairs never answered 200.
    var lost: Int { expected - delivered }
    /// Per event, pushes the relay answered ok beyond the pairs the fake answered 200: a push
    /// reported delivered that never reached the provider.
    let okButMissing: Int
    /// How long the host's outbox took to empty after the last answer.
    let drain: OutboxDrain

    static let header = "| scenario | events | pushes expected | relay ok | queued | hub reposts | delivered | duplicates | lost "
        + "| ok but missing | outbox drained |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

    /// Reads the record file, one JSON line per request the fake decided.
    init(scenario: String, recordFile: String, devices: Int, outcomes: [String: Hub.Outcome], drain: OutboxDrain) throws {
        var collapseIds: [String: [String?]] = [:]
        for line in try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n") {
            let record = try JSONValue.parse(String(line))
            guard record["status"]?.int64Value == 200, let path = record["path"]?.stringValue,
                  let eventId = record["payload"]?["eventId"]?.stringValue else { continue }
            collapseIds["\(path.dropFirst("/3/device/".count)) \(eventId)", default: []]
                .append(record["headers"]?["apns-collapse-id"]?.stringValue)
        }
        var deliveredPerEvent: [String: Int] = [:]
        for pair in collapseIds.keys { deliveredPerEvent[String(pair.split(separator: " ")[1]), default: 0] += 1 }
        self.scenario = scenario
        events = outcomes.count
        expected = outcomes.count * devices
        relayOk = outcomes.values.reduce(0) { $0 + $1.accepted }
        queued = outcomes.values.reduce(0) { $0 + $1.queued }
        reposts = outcomes.values.reduce(0) { $0 + $1.reposts }
        delivered = collapseIds.count
        duplicates = collapseIds.values.reduce(0) { $0 + $1.count - 1 }
        duplicatesNotCollapsing = collapseIds.filter { $0.value.count > 1 && (Set($0.value).count > 1 || $0.value[0] == nil) }
            .map { "\($0.key): collapse ids \($0.value.map { $0 ?? "none" })" }.sorted()
        okButMissing = outcomes.reduce(0) { $0 + max(0, $1.value.accepted - deliveredPerEvent[$1.key, default: 0]) }
        self.drain = drain
    }

    /// The Markdown table row.
    var row: String {
        "| \(scenario) | \(events) | \(expected) | \(relayOk) | \(queued) | \(reposts) | \(delivered) | \(duplicates) | \(lost) "
            + "| \(okButMissing) | \(drain.cell) |"
    }
}
