import Foundation

/// One line the bench suites print (Scripts/bench.d): a figure, a fact of the run, a paragraph of
/// the section's text or a size the section's labels need. docs/bench.md, "Figure lines".
public struct BenchRecord: Decodable, Equatable, Sendable {
    public var suite: String
    /// A figure: its round (from 1), dotted name, value and unit; `group` separates runs of one
    /// round that report the same names (the apns windows, the hapi-push connection counts).
    public var round: Int?
    public var group: String?
    public var name: String?
    public var value: Double?
    public var unit: String?
    /// A fact: `date`, `machine`, `load`, `invocation`, `ran` (a command, in order) or a label
    /// of its own (`OpenSSL`), with its text.
    public var fact: String?
    /// A paragraph of the section: `place` `intro` (before the facts) or `outro` (after the table).
    public var text: String?
    public var place: String?
    /// A size the section's labels and notes name (`register_hosts` …), with its `value`.
    public var setting: String?

    public init(suite: String, round: Int? = nil, group: String? = nil, name: String? = nil, value: Double? = nil,
                unit: String? = nil, fact: String? = nil, text: String? = nil, place: String? = nil, setting: String? = nil) {
        self.suite = suite
        self.round = round
        self.group = group
        self.name = name
        self.value = value
        self.unit = unit
        self.fact = fact
        self.text = text
        self.place = place
        self.setting = setting
    }

    /// The records of `text`, one JSON object a line; blank lines are skipped.
    public static func parse(lines text: String) throws -> [BenchRecord] {
        let decoder = JSONDecoder()
        var records: [BenchRecord] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            do {
                records.append(try decoder.decode(BenchRecord.self, from: Data(trimmed.utf8)))
            } catch {
                throw BenchReportError("figure line \(index + 1) is not a bench record: \(trimmed)")
            }
        }
        return records
    }
}

/// A figure's value and unit.
public struct Figure: Equatable, Sendable {
    public var value: Double
    public var unit: String

    public init(_ value: Double, _ unit: String) {
        self.value = value
        self.unit = unit
    }
}

/// Figures by name, of one round (and group).
public typealias Round = [String: Figure]

/// What one suite's records say: its rounds per group, facts, text and settings.
public struct SuiteFigures: Sendable {
    public let suite: String
    /// Rounds in round order, per group ("" when the suite has none).
    public private(set) var groups: [String: [Round]] = [:]
    /// Figure names in the order first reported.
    public private(set) var names: [String] = []
    public private(set) var facts: [(label: String, text: String)] = []
    public private(set) var commands: [String] = []
    public private(set) var intro: [String] = []
    public private(set) var outro: [String] = []
    public private(set) var settings: [String: Double] = [:]

    public init(suite: String, records: [BenchRecord]) throws {
        self.suite = suite
        var byRound: [String: [Int: Round]] = [:]
        for record in records where record.suite == suite {
            if let name = record.name {
                guard let value = record.value, let round = record.round else {
                    throw BenchReportError("\(suite): figure \(name) has no value or round")
                }
                byRound[record.group ?? "", default: [:]][round, default: [:]][name] = Figure(value, record.unit ?? "")
                if !names.contains(name) { names.append(name) }
            } else if let fact = record.fact {
                if fact == "ran" { commands.append(record.text ?? "") } else { facts.append((fact, record.text ?? "")) }
            } else if let text = record.text {
                if record.place == "outro" { outro.append(text) } else { intro.append(text) }
            } else if let setting = record.setting, let value = record.value {
                settings[setting] = value
            }
        }
        groups = byRound.mapValues { rounds in rounds.keys.sorted().map { rounds[$0]! } }
    }

    /// The rounds of `group`; fails when the suite reported none.
    public func rounds(_ group: String = "") throws -> [Round] {
        guard let rounds = groups[group], !rounds.isEmpty else {
            throw BenchReportError("\(suite): no figures\(group.isEmpty ? "" : " in group \(group)")")
        }
        return rounds
    }

    /// A size the suite recorded (`setting`), or `fallback`.
    public func setting(_ name: String, or fallback: Double) -> Double { settings[name] ?? fallback }

    public var hasFigures: Bool { !groups.isEmpty }
}

/// A figure the report needs that a round lacks, a malformed line, a tool that failed.
public struct BenchReportError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Round {
    /// The figure `name`, or an error naming it.
    func require(_ name: String) throws -> Figure {
        guard let figure = self[name] else { throw BenchReportError("a round has no figure \(name)") }
        return figure
    }
}
