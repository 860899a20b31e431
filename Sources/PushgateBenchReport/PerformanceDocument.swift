/// docs/performance.md: the opening, one `## name` section per suite in the bench's order, then
/// the sections other scripts write (faults, soak), which every run keeps as they are.
public enum PerformanceDocument {
    /// The suites, in the order Scripts/bench runs them and the file shows them.
    public static let suites = ["core", "apns", "relay", "host", "live-activity", "hapi", "hapi-push", "postgres", "gateway"]
    /// Sections Scripts/faults and Scripts/soak fill in.
    public static let otherSections = ["faults", "soak"]

    /// The charts the report draws into docs/perf/, with what each shows.
    public static let charts: [(file: String, title: String)] = [
        ("register-rate.svg", "register-token rate against `openssl speed` verify, per round (relay)"),
        ("apns-h2load-cpu.svg", "the APNs client against `h2load`: CPU per push, per round (apns)"),
        ("apns-h2load-rate.svg", "the APNs client against `h2load`: pushes per second, per round (apns)"),
        ("latency.svg", "latency p50 and p99 of every suite that measures it (medians)"),
        ("faults.svg", "the fault scenarios: pushes queued, posted again, duplicated and lost (faults)"),
    ]

    /// The file's opening, linking the charts drawn from it (`charts`, file names in docs/perf/).
    public static func preamble(charts: [String]) -> String {
        let links = Self.charts.filter { charts.contains($0.file) }.map { "- [\($0.title)](perf/\($0.file))" }
        return opening + (links.isEmpty ? "" : "\nCharts (docs/perf/, drawn from the tables below):\n\n" + links.joined(separator: "\n") + "\n")
    }

    private static let opening = """
        # Performance

        How to run the benchmarks: `Scripts/bench` installs what is missing (`Scripts/bootstrap`),
        builds in release mode (`swift build -c release`), runs every suite and rewrites this file;
        `Scripts/bench core` runs one suite and replaces only its section (suites: core, apns, relay,
        host, live-activity, hapi, hapi-push, postgres, gateway). `BENCH_SECONDS=N` sets the CPU seconds
        per figure of core and hapi (default 3) and `BENCH_ROUNDS=N` the number of rounds (default 5 for
        core, apns and hapi, 3 for the others; core, apns and relay keep the best round's figures (relay
        lists every round's register rate below its table), the others show every round, their median
        and the best). Sizes of the later
        suites: `BENCH_LIVE_ACTIVITY_TOKENS` (10 000), `BENCH_LIVE_ACTIVITY_TICKS` (50),
        `BENCH_HAPI_PUSH_REQUESTS` (20 000), `BENCH_POSTGRES_SECONDS` (5), `BENCH_GATEWAY_HOSTS` (400).
        A single suite also runs on its own, printing one JSON line per figure and a readable line on
        standard error: `.build/release/pushgate-dev bench core --seconds 3` (see docs/bench.md). Core and
        hapi figures are per CPU-second of one thread and live-activity's are CPU times, so a loaded
        machine disturbs them less; the other suites run several processes against each other and give
        wall-clock rates with the CPU each process used. Each section records when, where, at what load
        and with which commands it was measured. The last two sections, faults and soak, are not
        benchmarks: they hold what `Scripts/faults` and `Scripts/soak` print, and `Scripts/bench` keeps
        them as they are. The sections and the charts below are written by `pushgate-dev bench report` from
        the suites' figure lines (docs/bench.md, "The report").

        """

    /// One suite's section: heading, the suite's text, the facts of the run, then `body` (the
    /// table and notes) and the suite's closing text.
    public static func section(_ suite: SuiteFigures, body: [String]) -> String {
        var lines = ["## \(suite.suite)", ""]
        lines.append(suite.intro.joined(separator: "\n\n"))
        lines.append("")
        lines += facts(suite)
        lines.append("")
        lines += body
        for text in suite.outro { lines += ["", text] }
        return lines.joined(separator: "\n")
    }

    /// The bullet list every section starts with: date, machine, load, the invocation and the
    /// commands it ran, then the suite's own facts (`OpenSSL: …`).
    static func facts(_ suite: SuiteFigures) -> [String] {
        let labels = ["date": "Date", "machine": "Machine", "load": "Load average when started"]
        var lines: [String] = []
        for key in ["date", "machine", "load"] {
            if let fact = suite.facts.first(where: { $0.label == key }) { lines.append("- \(labels[key]!): \(fact.text)") }
        }
        let invocation = suite.facts.first { $0.label == "invocation" }?.text ?? "Scripts/bench"
        lines.append("- Command: `\(invocation)`, which ran:")
        lines += suite.commands.map { "  - `\($0)`" }
        if suite.commands.contains(where: { $0.contains("$WORK") }) { lines.append("  (`$WORK`: the run's temporary directory)") }
        for fact in suite.facts where !["date", "machine", "load", "invocation"].contains(fact.label) {
            lines.append("- \(fact.label): \(fact.text)")
        }
        return lines
    }

    /// The `## name` sections of a document, each without its trailing newlines, by name.
    public static func sections(of document: String) -> [(name: String, text: String)] {
        var result: [(name: String, text: String)] = []
        var current: [Substring] = []
        func close() {
            guard let heading = current.first, heading.hasPrefix("## ") else { return }
            var text = current.joined(separator: "\n")
            while text.hasSuffix("\n") { text.removeLast() }
            result.append((String(heading.dropFirst(3)).trimmingTrailingSpaces, text))
        }
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                close()
                current = []
            }
            current.append(line)
        }
        close()
        return result
    }

    /// The document with the opening and `replacing`'s sections; every other section of `old`
    /// is kept. Suites in their order, then the other scripts' sections, unknown ones last.
    public static func merge(old: String?, replacing new: [String: String]) -> String {
        var merged: [String: String] = [:]
        var oldOrder: [String] = []
        for section in sections(of: old ?? "") {
            merged[section.name] = section.text
            oldOrder.append(section.name)
        }
        merged.merge(new) { _, replacement in replacement }
        let order = suites + otherSections
        let names = order.filter { merged[$0] != nil } + (oldOrder + new.keys.sorted()).filter { !order.contains($0) }
        var seen: Set<String> = []
        var body = ""
        for name in names where seen.insert(name).inserted {
            body += "\n" + merged[name]! + "\n"
        }
        return preamble(charts: BenchCharts.charts(from: body).map(\.file)) + body
    }
}

/// A markdown table as the report reads its own (and Scripts/faults') tables back: its header
/// cells and rows of cells.
public struct MarkdownTable: Equatable, Sendable {
    public let header: [String]
    public let rows: [[String]]

    /// Every table in `text`, in order.
    public static func tables(in text: String) -> [MarkdownTable] {
        var tables: [MarkdownTable] = []
        var block: [[String]] = []
        func close() {
            if block.count >= 2 { tables.append(MarkdownTable(header: block[0], rows: Array(block.dropFirst(2)))) }
            block = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingTrailingSpaces
            if trimmed.hasPrefix("|") && trimmed.hasSuffix("|") {
                block.append(trimmed.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
                    .map { String($0).trimmingSpaces })
            } else {
                close()
            }
        }
        close()
        return tables
    }

    /// The row whose first cell is `metric`.
    public func row(_ metric: String) -> [String]? { rows.first { $0.first == metric } }

    /// The column named `name` of `row`.
    public func cell(_ row: [String], _ name: String) -> String? {
        guard let index = header.firstIndex(of: name), index < row.count else { return nil }
        return row[index]
    }
}

extension StringProtocol {
    var trimmingTrailingSpaces: String {
        var text = String(self)
        while text.last == " " { text.removeLast() }
        return text
    }

    var trimmingSpaces: String {
        String(drop { $0 == " " }).trimmingTrailingSpaces
    }
}
