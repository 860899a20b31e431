import Foundation
import PushgateCore

/// The gateway scenario's figures, in the columns of ``DeliveryTally/header``: a pair is one
/// notification (a host's `seq`) to one phone. A summary the fake answered 200 carries its
/// latest `notificationSeq` and its `coalescedCount`; since a window holds a run of its
/// registration's queued notifications, it covers the `coalescedCount` latest of them up to
/// that seq. A send with no answer (the relay was down) may have been queued, so it counts
/// among those a summary may cover, though not among those the relay answered `queued`.
struct GatewayDeliveryTally: Sendable {
    let scenario: String
    /// Sends posted.
    let events: Int
    /// Pairs posted.
    let expected: Int
    /// Pairs the relay answered `queued`.
    let relayOk: Int
    /// Distinct pairs some summary covered.
    let delivered: Int
    /// Coverings of a pair beyond the first.
    let duplicates: Int
    /// Pairs answered `queued` that no summary covered.
    let okButMissing: Int
    var lost: Int { expected - delivered }

    init(scenario: String, recordFile: String, hosts: [GatewayBurst.Host], sends: [GatewayBurst.Send]) throws {
        // Per token, the seqs a summary may cover (ascending) and those answered `queued`.
        var candidates: [String: [Int]] = [:]
        var queued = Set<Pair>()
        for send in sends.sorted(by: { $0.seq < $1.seq }) {
            for phone in hosts[send.host].phones {
                let status = send.statuses.map { $0[phone.registrationId] }
                guard status == nil || status == "queued" else { continue }
                candidates[phone.token, default: []].append(send.seq)
                if status == "queued" { queued.insert(Pair(token: phone.token, seq: send.seq)) }
            }
        }
        var covered: [Pair: Int] = [:]
        for summary in try Self.summaries(recordFile) {
            let earlier = (candidates[summary.token] ?? []).filter { $0 <= summary.seq }
            for seq in earlier.suffix(summary.count) { covered[Pair(token: summary.token, seq: seq), default: 0] += 1 }
        }
        self.scenario = scenario
        events = sends.count
        expected = sends.reduce(0) { $0 + hosts[$1.host].phones.count }
        relayOk = queued.count
        delivered = covered.count
        duplicates = covered.values.reduce(0) { $0 + $1 - 1 }
        okButMissing = queued.filter { covered[$0] == nil }.count
    }

    /// The Markdown table row; the host's columns (queued, hub reposts, outbox drained) do not apply.
    var row: String {
        "| \(scenario) | \(events) | \(expected) | \(relayOk) | – | – | \(delivered) | \(duplicates) | \(lost) | \(okButMissing) | – |"
    }

    private struct Pair: Hashable { let token: String; let seq: Int }

    /// The summaries the fake answered 200, from the complete lines of its record file.
    static func summaries(_ recordFile: String) throws -> [(token: String, seq: Int, count: Int)] {
        let text = FileManager.default.fileExists(atPath: recordFile) ? try String(contentsOfFile: recordFile, encoding: .utf8) : ""
        // A line still being written has no newline yet.
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { line in
            let record = try JSONValue.parse(String(line))
            guard record["status"]?.int64Value == 200, let path = record["path"]?.stringValue,
                  let seq = record["payload"]?["orca"]?["notificationSeq"]?.int64Value,
                  let count = record["payload"]?["orca"]?["coalescedCount"]?.int64Value else { return nil }
            return (String(path.dropFirst("/3/device/".count)), Int(seq), Int(count))
        }
    }
}
