import Foundation

/// The soak's pass rule: for each series — the host's and the relay's resident memory and open
/// descriptors, and the p99 of `POST /api/events` — the median of the last minute's samples may
/// be at most 1.1 × the median of the second minute's. The first minute is the warm-up (and
/// has the first kills). The p99 series takes only the calm windows
/// (``SoakFaultSchedule/isCalm(windowEndingAt:)``): the others measure the 3-s stall the soak
/// itself causes. And it may grow by ``latencyAllowanceMs`` more: a millisecond p99 on a shared
/// 2-core machine moves by that much from minute to minute with nothing growing
/// (docs/bench.md, "The soak").
struct SoakVerdict: Sendable {
    /// One series judged.
    struct Judgement: Sendable {
        let series: String
        let secondMinute: Double?
        let lastMinute: Double?
        let unit: String
        /// Added to 1.1 × the second minute's median.
        let allowance: Double

        var passed: Bool {
            guard let secondMinute, let lastMinute else { return false }
            return lastMinute <= SoakVerdict.allowedGrowth * secondMinute + allowance
        }

        var row: String {
            func show(_ value: Double?) -> String {
                value.map { String(format: "%.1f", $0) + (unit.isEmpty ? "" : " " + unit) } ?? "none"
            }
            let ratio = secondMinute.flatMap { second in lastMinute.map { String(format: "%.2f", $0 / second) } } ?? "–"
            let allowed = allowance == 0 ? "1.1 ×" : "1.1 × + \(show(allowance))"
            return "| \(series) | \(show(secondMinute)) | \(show(lastMinute)) | \(ratio) | \(allowed) | \(passed ? "yes" : "**no**") |"
        }
    }

    static let allowedGrowth = 1.1
    /// What the p99 may grow by beyond 1.1 ×: in a 10-minute run with flat memory and
    /// descriptors, the calm windows' median p99 moved between 5.9 and 10.2 ms from minute to
    /// minute, without a trend.
    static let latencyAllowanceMs = 5.0
    static let header = "| series | median, minute 2 | median, last minute | ratio | allowed | passed |\n|---|---:|---:|---:|---|---|"

    let judgements: [Judgement]

    var passed: Bool { judgements.allSatisfy(\.passed) }

    init(samples: [SoakSample], minutes: Int) {
        func judge(_ series: String, _ unit: String, calmOnly: Bool = false, allowance: Double = 0,
                   _ value: (SoakSample) -> Double?) -> Judgement {
            func median(of minute: Int) -> Double? {
                let values = samples.filter { $0.minute == minute && (!calmOnly || SoakFaultSchedule.isCalm(windowEndingAt: $0.second)) }
                    .compactMap(value).sorted()
                guard !values.isEmpty else { return nil }
                let middle = values.count / 2
                return values.count.isMultiple(of: 2) ? (values[middle - 1] + values[middle]) / 2 : values[middle]
            }
            return Judgement(series: series, secondMinute: median(of: 2), lastMinute: median(of: minutes), unit: unit,
                             allowance: allowance)
        }
        judgements = [
            judge("host RSS", "MiB") { $0.hostRSSKiB.map { Double($0) / 1024 } },
            judge("host open descriptors", "") { $0.hostDescriptors.map(Double.init) },
            judge("relay RSS", "MiB") { $0.relayRSSKiB.map { Double($0) / 1024 } },
            judge("relay open descriptors", "") { $0.relayDescriptors.map(Double.init) },
            judge("POST /api/events p99, calm windows", "ms", calmOnly: true, allowance: Self.latencyAllowanceMs) { $0.eventP99Ms },
        ]
    }
}
