import Testing
@testable import PushgateBenchReport

@Suite struct BenchTablesTests {
    @Test func aRoundsTableShowsEveryRoundTheMedianAndTheBest() throws {
        let series: [Round] = [
            ["e": Figure(3_361, "events/s"), "p50": Figure(2.25, "ms"), "p99": Figure(4.57, "ms"), "cpu": Figure(190, "µs")],
            ["e": Figure(2_664, "events/s"), "p50": Figure(2.89, "ms"), "p99": Figure(5.4, "ms"), "cpu": Figure(230, "µs")],
            ["e": Figure(3_043, "events/s"), "p50": Figure(2.46, "ms"), "p99": Figure(5.48, "ms"), "cpu": Figure(200, "µs")],
        ]
        var table = RoundsTable(series)
        try table.row("events/s, 1 token", "e", whole: true)
        try table.row("event latency p50 / p99, 1 token", "p50", "p99")
        try table.row("host CPU per event, 1 token", "cpu", lowerIsBetter: true,
                      goal: BenchGoals.goal("host.host_cpu_per_event_one_device"), whole: true)
        #expect(table.lines == [
            "| metric | rounds | median | best | goal | met? |",
            "|---|---|---:|---:|---|---|",
            "| events/s, 1 token | 3 361 / 2 664 / 3 043 | 3 043 events/s | 3 361 events/s | — | — |",
            "| event latency p50 / p99, 1 token | 2.25 / 4.57, 2.89 / 5.40, 2.46 / 5.48 | 2.46 / 5.40 ms | — | — | — |",
            "| host CPU per event, 1 token | 190 / 230 / 200 | 200 µs | 190 µs | < 200 µs (median) | **no** |",
        ])
    }

    @Test func aUnitlessRowHasNoTrailingSpace() throws {
        var table = RoundsTable([["r": Figure(0.22, "")], ["r": Figure(0.31, "")]])
        try table.row("PostgreSQL rate / SQLite rate, same round", "r")
        #expect(table.lines.last == "| PostgreSQL rate / SQLite rate, same round | 0.22 / 0.31 | 0.27 | 0.31 | — | — |")
    }

    @Test func aReferenceTableShowsTheRatioAndTheGoal() {
        var table = ReferenceTable()
        table.row("register-token/s, SQLite file", Figure(12_751, "requests/s"),
                  reference: "15 885/s (openssl speed verify, 1 core, median)", ratio: 0.8312, goal: "ratio ≥ 0.8", met: true)
        table.row("latency p50 / p99", Figure(14.333, "ms"), Figure(27.86, "ms"))
        #expect(table.lines.dropFirst(2) == [
            "| register-token/s, SQLite file | 12 751 requests/s | 15 885/s (openssl speed verify, 1 core, median) | 0.83 | ratio ≥ 0.8 | yes |",
            "| latency p50 / p99 | 14.33 / 27.86 ms | — | — | — | — |",
        ])
    }

    @Test func markdownTablesReadBack() {
        let tables = MarkdownTable.tables(in: """
            text
            | scenario | events | lost |
            |---|---:|---:|
            | baseline | 300 | 0 |
            | relay kill -9, restarted | 300 | – |

            | a | b |
            |---|---|
            """)
        #expect(tables.count == 2)
        #expect(tables[0].header == ["scenario", "events", "lost"])
        #expect(tables[0].row("relay kill -9, restarted") == ["relay kill -9, restarted", "300", "–"])
        #expect(tables[0].cell(tables[0].rows[0], "lost") == "0")
        #expect(tables[1].rows.isEmpty)
    }
}
