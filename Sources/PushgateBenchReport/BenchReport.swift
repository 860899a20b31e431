import Foundation

/// `pushgate-dev bench report`: reads the suites' figure lines, writes their sections of
/// docs/performance.md (keeping every other section) and draws the charts of docs/perf/ from
/// the file it wrote. docs/bench.md, "The report".
public enum BenchReport {
    /// The sections of the suites in `records`, by suite name.
    public static func sections(_ records: [BenchRecord]) throws -> [String: String] {
        var sections: [String: String] = [:]
        for suite in Set(records.map(\.suite)) {
            guard let body = BenchSections.bodies[suite] else { throw BenchReportError("unknown suite \(suite)") }
            let figures = try SuiteFigures(suite: suite, records: records)
            do {
                sections[suite] = PerformanceDocument.section(figures, body: try body(figures))
            } catch let error as BenchReportError {
                throw BenchReportError("\(suite): \(error.description)")
            }
        }
        return sections
    }

    /// Writes `document` with the sections of `figureLines` (none: the document is only read),
    /// then, with `chartsDirectory`, draws the charts from it.
    public static func run(figureLines: String?, document path: String, chartsDirectory: String?) throws {
        var document = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
        if let figureLines {
            let merged = PerformanceDocument.merge(old: document, replacing: try sections(BenchRecord.parse(lines: figureLines)))
            try Data(merged.utf8).write(to: URL(fileURLWithPath: path))
            document = merged
        }
        if let chartsDirectory {
            guard let document else { throw BenchReportError("\(path) does not exist") }
            try BenchCharts.draw(BenchCharts.charts(from: document), into: chartsDirectory)
        }
    }
}
