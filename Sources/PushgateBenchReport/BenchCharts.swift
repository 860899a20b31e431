import Foundation

/// The charts of docs/perf/, drawn with gnuplot from the tables of docs/performance.md itself,
/// so the pictures always show the figures the file shows (and can be drawn again from the
/// file alone, `pushgate-dev bench report --charts-only`).
public enum BenchCharts {
    /// One chart: its file name in docs/perf/ and the gnuplot script that draws it.
    public struct Chart: Equatable, Sendable {
        public let file: String
        public let script: String
    }

    /// Every chart whose figures `document` holds; a chart without them (the h2load rounds
    /// before an apns run that had h2load) is left out.
    public static func charts(from document: String) -> [Chart] {
        let sections = Dictionary(PerformanceDocument.sections(of: document).map { ($0.name, $0.text) }) { first, _ in first }
        var charts: [Chart] = []
        if let relay = sections["relay"], let chart = registerRate(relay) { charts.append(chart) }
        if let apns = sections["apns"] { charts += apnsAgainstH2load(apns) }
        if let chart = latency(sections) { charts.append(chart) }
        if let faults = sections["faults"], let chart = faultTable(faults) { charts.append(chart) }
        return charts
    }

    /// Draws `charts` into `directory` (one SVG each) with gnuplot.
    public static func draw(_ charts: [Chart], into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for chart in charts {
            let path = (directory as NSString).appendingPathComponent(chart.file)
            try gnuplot("set output \"\(path)\"\n" + chart.script)
        }
    }

    // MARK: The charts

    /// relay: the "Register rounds" note lists each round's rate and that round's `openssl speed`.
    static func registerRate(_ section: String) -> Chart? {
        guard let line = section.split(separator: "\n").first(where: { $0.hasPrefix("Register rounds") }),
              let start = line.range(of: "ratio): ") else { return nil }
        var body = String(line[start.upperBound...])
        if let end = body.range(of: ". A register") { body = String(body[..<end.lowerBound]) }
        var series: [(label: String, rates: [Double], openssl: [Double])] = []
        let entry = try! NSRegularExpression(pattern: "([0-9][0-9 ]*)/s vs ([0-9][0-9 ]*)/s \\(")
        for part in body.components(separatedBy: "; ") {
            guard let colon = part.range(of: ": (?=[0-9])", options: .regularExpression) else { continue }
            let label = String(part[..<colon.lowerBound])
            let values = entry.matches(in: part, range: NSRange(part.startIndex..., in: part)).map { match in
                (number(String(part[Range(match.range(at: 1), in: part)!]))!, number(String(part[Range(match.range(at: 2), in: part)!]))!)
            }
            series.append((label, values.map(\.0), values.map(\.1)))
        }
        guard let first = series.first, !first.rates.isEmpty, series.allSatisfy({ $0.rates.count == first.rates.count }) else { return nil }
        let rows = first.rates.indices.map { round in
            ([String(round + 1)] + series.map { format($0.rates[round]) } + [format(first.openssl[round])]).joined(separator: " ")
        }
        let plots = series.enumerated().map { index, item in "$data using 1:\(index + 2) with linespoints lw 2 title \(quoted(item.label))" }
            + ["$data using 1:\(series.count + 2) with linespoints lw 2 dt 2 title \"openssl speed verify, 1 core\""]
        return Chart(file: "register-rate.svg", script: header(title: "register-token/s against openssl speed verify, per round", size: "800,450")
            + datablock(rows) + """
            set xlabel "round"
            set ylabel "requests or verifications per second"
            set xtics 1
            set autoscale xfix
            set offsets 0.2, 0.2, 0, 0
            set yrange [0:*]
            set key below
            plot \(plots.joined(separator: ", \\\n     "))

            """)
    }

    /// apns: the rounds table of the client against h2load.
    static func apnsAgainstH2load(_ section: String) -> [Chart] {
        guard let table = MarkdownTable.tables(in: section).first(where: { $0.header.contains("rounds") }) else { return [] }
        func rounds(_ metric: String) -> [Double]? {
            guard let row = table.row(metric), let cell = table.cell(row, "rounds") else { return nil }
            let values = cell.components(separatedBy: " / ").compactMap(number)
            return values.isEmpty ? nil : values
        }
        var charts: [Chart] = []
        for (file, title, unit, client, h2load) in [
            ("apns-h2load-cpu.svg", "CPU per push, whole process: APNs client against h2load, per round", "µs",
             "client CPU per push, whole process", "h2load CPU per push, whole process"),
            ("apns-h2load-rate.svg", "pushes per second: APNs client against h2load, per round", "pushes/s",
             "pushes/s, client (1 000 outstanding)", "pushes/s, h2load (1 000 streams)"),
        ] {
            guard let ours = rounds(client), let theirs = rounds(h2load), ours.count == theirs.count else { continue }
            let rows = ours.indices.map { "\($0 + 1) \(format(ours[$0])) \(format(theirs[$0]))" }
            charts.append(Chart(file: file, script: header(title: title, size: "800,450") + datablock(rows) + """
                set xlabel "round"
                set ylabel "\(unit)"
                set xtics 1
                set autoscale xfix
                set offsets 0.2, 0.2, 0, 0
                set yrange [0:*]
                set key below
                plot $data using 1:2 with linespoints lw 2 title "APNsClient (pushgate-dev bench apns)", \\
                     $data using 1:3 with linespoints lw 2 title "h2load (nghttp2)"

                """))
        }
        return charts
    }

    /// Every table row of a bench section whose metric is a `latency p50 / p99`: the median
    /// column of a rounds table, the shown figure of the others.
    static func latency(_ sections: [String: String]) -> Chart? {
        var rows: [String] = []
        for suite in PerformanceDocument.suites {
            guard let section = sections[suite] else { continue }
            for table in MarkdownTable.tables(in: section) {
                let column = table.header.contains("median") ? "median" : "Pushgate"
                for row in table.rows where row[0].contains("latency p50 / p99") {
                    guard let cell = table.cell(row, column) else { continue }
                    let pair = cell.replacingOccurrences(of: " ms", with: "").components(separatedBy: " / ").compactMap(number)
                    guard pair.count == 2 else { continue }
                    var rest = row[0].replacingOccurrences(of: "latency p50 / p99", with: "")
                        .replacingOccurrences(of: "`", with: "").replacingOccurrences(of: " ,", with: ",").trimmingSpaces
                    if rest.hasPrefix(",") { rest = String(rest.dropFirst()).trimmingSpaces }
                    if rest.hasSuffix(",") || rest.hasSuffix(":") { rest = String(rest.dropLast()).trimmingSpaces }
                    let label = rest.isEmpty ? suite : "\(suite): \(rest)"
                    rows.append("\(quoted(label)) \(format(pair[0])) \(format(pair[1]))")
                }
            }
        }
        guard !rows.isEmpty else { return nil }
        return Chart(file: "latency.svg", script: header(title: "latency p50 and p99 (ms; median of the rounds, or the round shown)", size: "1100,650")
            + datablock(rows) + histograms(ylabel: "ms", leftMargin: 28) + """
            plot $data using 2:xtic(1) title "p50", '' using 3 title "p99"

            """)
    }

    /// faults: the last scenario table (Scripts/faults' newest run).
    static func faultTable(_ section: String) -> Chart? {
        guard let table = MarkdownTable.tables(in: section).last(where: { $0.header.first == "scenario" }) else { return nil }
        let columns = ["queued", "hub reposts", "duplicates", "lost"]
        let rows = table.rows.map { row in
            ([quoted(row[0])] + columns.map { column in table.cell(row, column).flatMap(number).map(format) ?? "NaN" })
                .joined(separator: " ")
        }
        guard !rows.isEmpty else { return nil }
        let plots = columns.enumerated().map { index, column in
            (index == 0 ? "$data using 2:xtic(1)" : "'' using \(index + 2)") + " title \(quoted(column))"
        }
        return Chart(file: "faults.svg", script: header(title: "fault scenarios: pushes queued in the outbox, hub reposts, duplicates, lost", size: "1100,650")
            + datablock(rows) + histograms(ylabel: "pushes", leftMargin: 30) + """
            set datafile missing "NaN"
            plot \(plots.joined(separator: ", "))

            """)
    }

    // MARK: gnuplot

    /// Clustered bars, one cluster per row, their labels slanted below.
    private static func histograms(ylabel: String, leftMargin: Int) -> String {
        """
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.85 border -1
        set boxwidth 0.9
        set xtics rotate by 35 right font ",9"
        set ylabel "\(ylabel)"
        set yrange [0:*]
        set bmargin 15
        set lmargin \(leftMargin)

        """
    }

    private static func header(title: String, size: String) -> String {
        """
        set terminal svg size \(size) font "sans,11" background rgb "white"
        set encoding utf8
        set termoption noenhanced
        set title \(quoted(title))
        set grid ytics
        set key top left

        """
    }

    private static func datablock(_ rows: [String]) -> String {
        "$data << EOD\n" + rows.joined(separator: "\n") + "\nEOD\n"
    }

    /// A gnuplot string: double quotes, and no character gnuplot would expand.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "'").replacingOccurrences(of: "`", with: "")
            .replacingOccurrences(of: "\\", with: "/") + "\""
    }

    /// A figure as the tables show it (`12 751`, `4.55`); nil for `—` or `–`.
    static func number(_ text: String) -> Double? {
        Double(text.replacingOccurrences(of: " ", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "*")))
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func gnuplot(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gnuplot"]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw BenchReportError("cannot run gnuplot (Scripts/bootstrap installs gnuplot-nox): \(error)")
        }
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchReportError("gnuplot failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
    }
}
