import Foundation

/// The soak's pass rule: for each series — the host's and the relay's resident memory and open
/// descriptors, and the p99 of `POST /api/events` — the median of the last minute's samples may
/// be at most 1.1 × the median of the second minute's. The first minute is the warm-up (and
/// has the first kills).
struct SoakVerdict: Sendable {
    /// One series judged.
    struct Judgement: Sendable {
        let series: String
        let secondMinute: Double?
        let lastMinute: Double?
        let unit: String

        var passed: Bool {
            guard let secondMinute, let lastMinute else { return false }
            return lastMinute <= SoakVerdict.allowedGrowth * secondMinute
        }

        var row: String {
            func show(_ value: Double?) -> String {
                value.map { String(format: "%.1f", $0) + (unit.isEmpty ? "" : " " + unit) } ?? "none"
            }
            let ratio = secondMinute.flatMap { second in lastMinute.map { String(format: "%.2f", $0 / second) } } ?? "–"
            return "| \(series) | \(show(secondMinute)) | \(show(lastMinute)) | \(ratio) | \(passed ? "yes" : "**no**") |"
        }
    }

    static let allowedGrowth = 1.1
    static let header = "| series | median, minute 2 | median, last minute | ratio | ≤ 1.1? |\n|---|---:|---:|---:|---|"

    let judgements: [Judgement]

    var passed: Bool { judgements.allSatisfy(\.passed) }

    init(samples: [SoakSample], minutes: Int) {
        func judge(_ series: String, _ unit: String, _ value: (SoakSample) -> Double?) -> Judgement {
            func median(of minute: Int) -> Double? {
                let values = samples.filter { $0.minute == minute }.compactMap(value).sorted()
                guard !values.isEmpty else { return nil }
                let middle = values.count / 2
                return values.count.isMultiple(of: 2) ? (values[middle - 1] + values[middle]) / 2 : values[middle]
            }
            return Judgement(series: series, secondMinute: median(of: 2), lastMinute: median(of: minutes), unit: unit)
        }
        judgements = [
            judge("host RSS", "MiB") { $0.hostRSSKiB.map { Double($0) / 1024 } },
            judge("host open descriptors", "") { $0.hostDescriptors.map(Double.init) },
            judge("relay RSS", "MiB") { $0.relayRSSKiB.map { Double($0) / 1024 } },
            judge("relay open descriptors", "") { $0.relayDescriptors.map(Double.init) },
            judge("POST /api/events p99", "ms") { $0.eventP99Ms },
        ]
    }
}
