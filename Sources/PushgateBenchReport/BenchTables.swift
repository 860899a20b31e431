import Foundation

/// How the report writes numbers: `count` groups thousands with spaces, `number` keeps two
/// decimals below 100.
public enum BenchNumber {
    /// `12751.4` → `12 751`.
    public static func count(_ value: Double) -> String {
        let whole = Int(value.rounded(.toNearestOrEven))
        var digits = String(whole.magnitude)
        var groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(digits, at: 0)
        return (whole < 0 ? "-" : "") + groups.joined(separator: " ")
    }

    /// Two decimals below 100 (`14.33`), a grouped whole number from 100 (`1 053`).
    public static func number(_ value: Double) -> String {
        abs(value) < 100 ? fixed(value, decimals: 2) : count(value)
    }

    public static func fixed(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}

/// A table whose rows set one figure beside a reference: `| metric | Pushgate | reference |
/// ratio | goal | met? |`.
public struct ReferenceTable {
    public private(set) var lines = [
        "| metric | Pushgate | reference | ratio | goal | met? |",
        "|---|---:|---:|---:|---|---|",
    ]

    public init() {}

    /// One row; `figure` and `second` are shown `a / b unit` when both are given.
    public mutating func row(_ metric: String, _ figure: Figure, _ second: Figure? = nil, reference: String = "—",
                             ratio: Double? = nil, goal: String = "—", met: Bool? = nil) {
        let value = BenchNumber.number(figure.value) + (second.map { " / " + BenchNumber.number($0.value) } ?? "") + " \(figure.unit)"
        row(metric, shown: value, reference: reference, ratio: ratio, goal: goal, met: met)
    }

    /// One row with the value column already written.
    public mutating func row(_ metric: String, shown: String, reference: String = "—", ratio: Double? = nil,
                             goal: String = "—", met: Bool? = nil) {
        let ratioText = ratio.map { BenchNumber.fixed($0, decimals: 2) } ?? "—"
        lines.append("| \(metric) | \(shown) | \(reference) | \(ratioText) | \(goal) | \(BenchTableCell.met(met)) |")
    }
}

/// A table of every round: `| metric | rounds | median | best | goal | met? |`.
public struct RoundsTable {
    public private(set) var lines = [
        "| metric | rounds | median | best | goal | met? |",
        "|---|---|---:|---:|---|---|",
    ]
    let rounds: [Round]

    public init(_ rounds: [Round]) { self.rounds = rounds }

    /// One row of figure `name` over the rounds (`a / b` with figure `second`; no best for a
    /// pair), their median and the best (the highest, or the lowest with `lowerIsBetter`).
    /// `goal` judges the rounds' values of `name`; `whole` shows counts without decimals.
    public mutating func row(_ metric: String, _ name: String, _ second: String? = nil, lowerIsBetter: Bool = false,
                             goal: Goal? = nil, whole: Bool = false) throws {
        func show(_ value: Double) -> String { whole ? BenchNumber.count(value) : BenchNumber.number(value) }
        let unit = try rounds[0].require(name).unit
        let values = try BenchStatistics.values(rounds, name)
        let shown: String, middle: String, best: String
        if let second {
            let seconds = try BenchStatistics.values(rounds, second)
            shown = zip(values, seconds).map { "\(show($0)) / \(show($1))" }.joined(separator: ", ")
            middle = "\(show(BenchStatistics.median(values))) / \(show(BenchStatistics.median(seconds))) \(unit)".trimmingTrailingSpaces
            best = "—"
        } else {
            shown = values.map { show($0) }.joined(separator: " / ")
            middle = "\(show(BenchStatistics.median(values))) \(unit)".trimmingTrailingSpaces
            best = "\(show((lowerIsBetter ? values.min() : values.max())!)) \(unit)".trimmingTrailingSpaces
        }
        let met = goal.map { $0.isMet(by: values) }
        lines.append("| \(metric) | \(shown) | \(middle) | \(best) | \(goal?.text ?? "—") | \(BenchTableCell.met(met)) |")
    }
}

enum BenchTableCell {
    static func met(_ met: Bool?) -> String {
        guard let met else { return "—" }
        return met ? "yes" : "**no**"
    }
}

