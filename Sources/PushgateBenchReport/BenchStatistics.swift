/// The statistics the report takes over rounds: medians, per-round ratios, the best and the
/// median round.
public enum BenchStatistics {
    /// The middle value; of an even count, the mean of the two middle ones.
    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the median of no values")
        let ordered = values.sorted()
        let middle = ordered.count / 2
        return ordered.count % 2 == 1 ? ordered[middle] : (ordered[middle - 1] + ordered[middle]) / 2
    }

    /// Each round's `name` / `reference`, in round order: a round's pair runs back to back, so a
    /// change of the machine's load between rounds cancels out, which best / best does not do.
    public static func ratios(_ rounds: [Round], _ name: String, over reference: String) throws -> [Double] {
        try rounds.map { try $0.require(name).value / $0.require(reference).value }
    }

    /// The values of `name` over the rounds, in round order.
    public static func values(_ rounds: [Round], _ name: String) throws -> [Double] {
        try rounds.map { try $0.require(name).value }
    }

    /// The round with the highest `name` (the lowest with `lowerIsBetter`): all its figures come
    /// from the same run.
    public static func bestRound(_ rounds: [Round], by name: String, lowerIsBetter: Bool = false) throws -> Round {
        let values = try values(rounds, name)
        let index = lowerIsBetter ? values.indices.min { values[$0] < values[$1] }! : values.indices.max { values[$0] < values[$1] }!
        return rounds[index]
    }

    /// The round at the middle of the rounds ordered by `name` (of an even count, the upper one).
    public static func medianRound(_ rounds: [Round], by name: String) throws -> Round {
        let values = try values(rounds, name)
        let order = values.indices.sorted { values[$0] < values[$1] }
        return rounds[order[order.count / 2]]
    }
}

/// A goal a figure must meet: its text in the table and how it is judged over the rounds.
public struct Goal: Sendable, Equatable {
    public enum Comparison: Sendable, Equatable {
        case atLeast(Double)
        case below(Double)
        case atMost(Double)
        case equal(Double)

        func holds(_ value: Double) -> Bool {
            switch self {
            case .atLeast(let bound): value >= bound
            case .below(let bound): value < bound
            case .atMost(let bound): value <= bound
            case .equal(let bound): value == bound
            }
        }
    }

    /// Which of the values the comparison judges.
    public enum Judged: Sendable, Equatable {
        /// The median of the rounds (a time or a ratio, which the machine's load moves).
        case median
        /// Every round (a count that must never differ).
        case everyRound
        /// The single value shown (a best round's figure).
        case shown
    }

    public let text: String
    public let comparison: Comparison
    public let judged: Judged

    public init(_ text: String, _ comparison: Comparison, judged: Judged) {
        self.text = text
        self.comparison = comparison
        self.judged = judged
    }

    /// Whether the rounds' values meet the goal (`shown` judges the first value given).
    public func isMet(by values: [Double]) -> Bool {
        guard !values.isEmpty else { return false }
        switch judged {
        case .median: return comparison.holds(BenchStatistics.median(values))
        case .everyRound: return values.allSatisfy(comparison.holds)
        case .shown: return comparison.holds(values[0])
        }
    }
}

/// Every goal of docs/performance.md, by the figure (or derived ratio) it judges.
public enum BenchGoals {
    public static let all: [String: Goal] = [
        "core.p256_verify/openssl.verify": Goal("ratio ≥ 0.9", .atLeast(0.9), judged: .median),
        "core.hapi_seal": Goal("≥ 200 000/s on one core", .atLeast(200_000), judged: .shown),
        "apns.pushes_per_second": Goal("≥ 30 000/s", .atLeast(30_000), judged: .shown),
        "apns.client_process_cpu_per_push/h2load.cpu_per_push": Goal("≤ 2.0 (median)", .atMost(2.0), judged: .median),
        "relay.register_file.requests_per_second/openssl.verify": Goal("ratio ≥ 0.8", .atLeast(0.8), judged: .median),
        "relay.rss": Goal("< 64 MiB", .below(64), judged: .shown),
        "host.host_cpu_per_event_one_device": Goal("< 200 µs (median)", .below(200), judged: .median),
        "live_activity.tick_unchanged_cpu_ms": Goal("< 20 ms", .below(20), judged: .median),
        "live_activity.tick_unchanged_requests": Goal("none", .equal(0), judged: .everyRound),
        "live_activity.empty_tick_store_reads": Goal("1", .equal(1), judged: .everyRound),
    ]

    /// The goal named `key`; a missing one is a mistake in the report's sections.
    public static func goal(_ key: String) -> Goal {
        guard let goal = all[key] else { preconditionFailure("no goal \(key)") }
        return goal
    }
}
