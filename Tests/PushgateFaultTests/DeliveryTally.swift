import Foundation
import PushgateCore

/// A scenario's figures: what the fake APNs recorded, by (device token, `eventId` in the
/// payload's data) with status 200, against the pushes expected and those the relay answered
/// ok (the host's `accepted` per event).
struct DeliveryTally: Sendable {
    let scenario: String
    let events: Int
    /// One push per device per event.
    let expected: Int
    /// Pushes the relay answered ok, by the host's dispatch results.
    let relayOk: Int
    /// Distinct (token, eventId) pairs the fake answered 200.
    let delivered: Int
    /// 200s beyond the first for the same pair.
    let duplicates: Int
    /// Pairs never answered 200.
    var lost: Int { expected - delivered }
    /// Per event, pushes the relay answered ok beyond the pairs the fake answered 200: a push
    /// reported delivered that never reached the provider.
    let okButMissing: Int

    static let header = "| scenario | events | pushes expected | relay ok | delivered | duplicates | lost | ok but missing |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|"

    /// Reads the record file, one JSON line per request the fake decided.
    init(scenario: String, recordFile: String, devices: Int, accepted: [String: Int]) throws {
        var successes: [String: Int] = [:]
        for line in try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n") {
            let record = try JSONValue.parse(String(line))
            guard record["status"]?.int64Value == 200, let path = record["path"]?.stringValue,
                  let eventId = record["payload"]?["eventId"]?.stringValue else { continue }
            successes["\(path.dropFirst("/3/device/".count)) \(eventId)", default: 0] += 1
        }
        var deliveredPerEvent: [String: Int] = [:]
        for pair in successes.keys { deliveredPerEvent[String(pair.split(separator: " ")[1]), default: 0] += 1 }
        self.scenario = scenario
        events = accepted.count
        expected = accepted.count * devices
        relayOk = accepted.values.reduce(0, +)
        delivered = successes.count
        duplicates = successes.values.reduce(0) { $0 + $1 - 1 }
        okButMissing = accepted.reduce(0) { $0 + max(0, $1.value - deliveredPerEvent[$1.key, default: 0]) }
    }

    /// The Markdown table row.
    var row: String {
        "| \(scenario) | \(events) | \(expected) | \(relayOk) | \(delivered) | \(duplicates) | \(lost) | \(okButMissing) |"
    }
}
