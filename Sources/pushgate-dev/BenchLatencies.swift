/// Request latencies of one run and their percentiles.
struct BenchLatencies {
    private var nanoseconds: [Int64] = []

    init(capacity: Int) { nanoseconds.reserveCapacity(capacity) }

    var count: Int { nanoseconds.count }

    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.append(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    mutating func append(contentsOf other: BenchLatencies) { nanoseconds += other.nanoseconds }

    /// Nearest-rank percentiles in milliseconds, one per fraction (0.5 is the median).
    func milliseconds(percentiles fractions: [Double]) -> [Double] {
        precondition(!nanoseconds.isEmpty, "no latencies recorded")
        let sorted = nanoseconds.sorted()
        return fractions.map { fraction in
            let rank = max(1, Int((fraction * Double(sorted.count)).rounded(.up)))
            return Double(sorted[min(rank, sorted.count) - 1]) / 1_000_000
        }
    }
}
