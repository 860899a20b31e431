import Foundation
import PushgateCore

/// The gateway scenario's figures, in the columns of ``DeliveryTally/header``: a pair is one
/// notification (a host's `seq`) to one phone. A summary the fake answered 200 carries its
/// latest `notificationSeq` and its `coalescedCount`; since a window holds a run of its
/// registration's queued notifications, it covers the `coalescedCount` latest of them up to
/// that seq. Every send was answered (``GatewayBurst``), so only the pairs answered `queued` may
/// be covered. A pair covered more than once must be covered under one collapse id (the fake's
/// `apns-collapse-id` header): a resend of the push that may have arrived.
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
    /// Pairs covered under more than one collapse id.
    let mixedCollapseIds: Int
    var lost: Int { expected - delivered }

    init(scenario: String, recordFile: String, hosts: [GatewayBurst.Host], sends: [GatewayBurst.Send]) throws {
        // Per token, the seqs answered `queued` (ascending): those a summary may cover.
        var candidates: [String: [Int]] = [:]
        var queued = Set<Pair>()
        for send in sends.sorted(by: { $0.seq < $1.seq }) {
            for phone in hosts[send.host].phones where send.statuses[phone.registrationId] == "queued" {
                candidates[phone.token, default: []].append(send.seq)
                queued.insert(Pair(token: phone.token, seq: send.seq))
            }
        }
        var covered: [Pair: Int] = [:]
        var collapseIds: [Pair: Set<String>] = [:]
        for summary in try Self.summaries(recordFile) {
            let earlier = (candidates[summary.token] ?? []).filter { $0 <= summary.seq }
            for seq in earlier.suffix(summary.count) {
                covered[Pair(token: summary.token, seq: seq), default: 0] += 1
                collapseIds[Pair(token: summary.token, seq: seq), default: []].insert(summary.collapseId)
            }
        }
        self.scenario = scenario
        events = sends.count
        expected = sends.reduce(0) { $0 + hosts[$1.host].phones.count }
        relayOk = queued.count
        delivered = covered.count
        duplicates = covered.values.reduce(0) { $0 + $1 - 1 }
        okButMissing = queued.filter { covered[$0] == nil }.count
        mixedCollapseIds = collapseIds.values.filter { $0.count > 1 }.count
    }

    /// The Markdown table row; the host's columns (queued, hub reposts, outbox drained) do not apply.
    var row: String {
        "| \(scenario) | \(events) | \(expected) | \(relayOk) | – | – | \(delivered) | \(duplicates) | \(lost) | \(okButMissing) | – |"
    }

    private struct Pair: Hashable { let token: String; let seq: Int }

    /// The summaries the fake answered 200, from the complete lines of its record file.
    static func summaries(_ recordFile: String) throws -> [(token: String, seq: Int, count: Int, collapseId: String)] {
        let text = FileManager.default.fileExists(atPath: recordFile) ? try String(contentsOfFile: recordFile, encoding: .utf8) : ""
        // A line still being written has no newline yet.
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { line in
            let record = try JSONValue.parse(String(line))
            guard record["status"]?.int64Value == 200, let path = record["path"]?.stringValue,
                  let seq = record["payload"]?["orca"]?["notificationSeq"]?.int64Value,
                  let count = record["payload"]?["orca"]?["coalescedCount"]?.int64Value,
                  let collapseId = record["headers"]?["apns-collapse-id"]?.stringValue else { return nil }
            return (String(path.dropFirst("/3/device/".count)), Int(seq), Int(count), collapseId)
        }
    }
}
