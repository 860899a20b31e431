import Testing
@testable import PushgateBenchReport

@Suite struct BenchReportTests {
    private static let hapiLines = """
        {"suite":"hapi","fact":"date","text":"2026-12-02 15:10 UTC"}
        {"suite":"hapi","fact":"machine","text":"AMD EPYC, 2 cores"}
        {"suite":"hapi","fact":"load","text":"2.06 1.06 1.70"}
        {"suite":"hapi","fact":"invocation","text":"Scripts/bench hapi"}
        {"suite":"hapi","fact":"ran","text":"pushgate-dev bench hapi --seconds 3 (2 times)"}
        {"suite":"hapi","text":"The host's CPU for the fan-out.","place":"intro"}
        {"suite":"hapi","text":"For comparison, see core.","place":"outro"}
        {"suite":"hapi","round":1,"name":"hapi.fanout_events","value":2324.3,"unit":"events/s"}
        {"suite":"hapi","round":1,"name":"hapi.fanout_envelopes","value":232426,"unit":"envelopes/s"}

        {"suite":"hapi","round":2,"name":"hapi.fanout_events","value":2469.7,"unit":"events/s"}
        {"suite":"hapi","round":2,"name":"hapi.fanout_envelopes","value":246974,"unit":"envelopes/s"}
        """

    @Test func aSectionFromFigureLines() throws {
        let sections = try BenchReport.sections(BenchRecord.parse(lines: Self.hapiLines))
        #expect(sections["hapi"] == """
            ## hapi

            The host's CPU for the fan-out.

            - Date: 2026-12-02 15:10 UTC
            - Machine: AMD EPYC, 2 cores
            - Load average when started: 2.06 1.06 1.70
            - Command: `Scripts/bench hapi`, which ran:
              - `pushgate-dev bench hapi --seconds 3 (2 times)`

            | metric | rounds | median | best | goal | met? |
            |---|---|---:|---:|---|---|
            | envelopes per CPU-second, fan-out of one event to 100 devices | 232 426 / 246 974 | 239 700 envelopes/s | 246 974 envelopes/s | — | — |
            | events per CPU-second (100 devices each) | 2 324 / 2 470 | 2 397 events/s | 2 470 events/s | — | — |
            | host CPU per device | 4.30 / 4.05 | 4.18 µs | 4.05 µs | — | — |

            For comparison, see core.
            """)
    }

    @Test func aMalformedLineIsNamed() {
        #expect(throws: BenchReportError("figure line 2 is not a bench record: {\"name\":1}")) {
            try BenchRecord.parse(lines: "{\"suite\":\"core\"}\n{\"name\":1}")
        }
    }

    @Test func aSuiteWithoutAFigureItNeedsFails() {
        #expect(throws: BenchReportError("hapi: a round has no figure hapi.fanout_envelopes")) {
            try BenchReport.sections(BenchRecord.parse(lines: """
                {"suite":"hapi","round":1,"name":"hapi.fanout_events","value":1,"unit":"events/s"}
                """))
        }
    }

    @Test func mergingKeepsTheOtherSectionsInTheirOrder() {
        let old = """
            # Performance

            old opening

            ## soak

            soak text

            ## hapi

            old hapi

            ## faults

            | scenario | lost |
            |---|---:|
            | baseline | 0 |
            """
        let merged = PerformanceDocument.merge(old: old, replacing: ["hapi": "## hapi\n\nnew hapi", "core": "## core\n\nnew core"])
        let preamble = PerformanceDocument.preamble(charts: ["faults.svg"])
        #expect(preamble.hasSuffix("- [the fault scenarios: pushes queued, posted again, duplicated and lost (faults)](perf/faults.svg)\n"))
        #expect(merged.hasPrefix(preamble))
        #expect(String(merged.dropFirst(preamble.count)) == """

            ## core

            new core

            ## hapi

            new hapi

            ## faults

            | scenario | lost |
            |---|---:|
            | baseline | 0 |

            ## soak

            soak text

            """)
    }

    @Test func theRegisterChartReadsTheRoundsNote() throws {
        let relay = """
            ## relay

            Register rounds (rate vs that round's `openssl speed` verify, ratio): SQLite file: 12 751/s vs 13 000/s (0.98), 13 132/s vs 15 885/s (0.83); SQLite `:memory:`: 11 215/s vs 13 000/s (0.86), 11 152/s vs 15 885/s (0.70). A register
            figure is the median round.
            """
        let chart = try #require(BenchCharts.registerRate(relay))
        #expect(chart.file == "register-rate.svg")
        #expect(chart.script.contains("$data << EOD\n1 12751 11215 13000\n2 13132 11152 15885\nEOD\n"))
        #expect(chart.script.contains("title \"SQLite :memory:\""))
    }

    @Test func theFaultChartTakesTheLastScenarioTable() throws {
        let faults = """
            ## faults

            | scenario | pushes expected | queued | hub reposts | duplicates | lost |
            |---|---:|---:|---:|---:|---:|
            | old | 6000 | 9 | 9 | 9 | 9 |

            | scenario | pushes expected | queued | hub reposts | duplicates | lost |
            |---|---:|---:|---:|---:|---:|
            | baseline | 6000 | 0 | 0 | 0 | 0 |
            | gateway relay kill -9 | 300 | – | – | 0 | 0 |
            """
        let chart = try #require(BenchCharts.faultTable(faults))
        #expect(chart.script.contains("$data << EOD\n\"baseline\" 0 0 0 0\n\"gateway relay kill -9\" NaN NaN 0 0\nEOD\n"))
    }
}

@Suite struct BenchReportAPNsTests {
    /// Three rounds of both windows; h2load beside the 1 000 window.
    private static func records(clientCPU: [Double]) -> [BenchRecord] {
        var records: [BenchRecord] = []
        for (index, cpu) in clientCPU.enumerated() {
            for window in ["1000", "2000"] {
                for (name, value, unit) in [("apns.pushes_per_second", 60_000.0 + Double(index) * 1000, "pushes/s"),
                                            ("apns.latency_p50", 14, "ms"), ("apns.latency_p99", 28, "ms"),
                                            ("apns.client_cpu_per_push", 20, "µs"), ("apns.client_peak_rss", 43, "MiB"),
                                            ("apns.client_process_cpu_per_push", cpu, "µs"), ("apns.fake_cpu_per_push", 10, "µs"),
                                            ("apns.fake_peak_rss", 32, "MiB")] {
                    records.append(BenchRecord(suite: "apns", round: index + 1, group: window, name: name, value: value, unit: unit))
                }
            }
            records.append(BenchRecord(suite: "apns", round: index + 1, group: "1000", name: "h2load.pushes_per_second",
                                       value: 75_000, unit: "pushes/s"))
            records.append(BenchRecord(suite: "apns", round: index + 1, group: "1000", name: "h2load.cpu_per_push", value: 5, unit: "µs"))
        }
        return records
    }

    @Test func theClientAgainstH2loadIsJudgedOnTheMedianOfTheRoundsRatios() throws {
        let section = try #require(try BenchReport.sections(Self.records(clientCPU: [25, 20, 7.5]))["apns"])
        #expect(section.contains("| client / h2load rate, same round | 0.80 / 0.81 / 0.83 | 0.81 | 0.83 | — | — |"))
        #expect(section.contains("| client / h2load CPU per push, same round | 5.00 / 4.00 / 1.50 | 4.00 | 1.50 | ≤ 2.0 (median) | **no** |"))
        let met = try #require(try BenchReport.sections(Self.records(clientCPU: [25, 9, 7.5]))["apns"])
        #expect(met.contains("| client / h2load CPU per push, same round | 5.00 / 1.80 / 1.50 | 1.80 | 1.50 | ≤ 2.0 (median) | yes |"))
        #expect(met.contains("| pushes/s, 1 000 outstanding | 62 000 pushes/s | — | — | ≥ 30 000/s | yes |"))
        #expect(met.contains("Range of pushes/s over the rounds: 1 000 outstanding 60 000–62 000; 2 000 outstanding 60 000–62 000."))
    }

    @Test func withoutH2loadTheSectionHasOnlyTheClientsTable() throws {
        let records = Self.records(clientCPU: [20]).filter { !($0.name ?? "").hasPrefix("h2load.") }
        let section = try #require(try BenchReport.sections(records)["apns"])
        #expect(!section.contains("h2load"))
        #expect(section.hasSuffix("Range of pushes/s over the rounds: 1 000 outstanding 60 000–60 000; 2 000 outstanding 60 000–60 000."))
    }
}
