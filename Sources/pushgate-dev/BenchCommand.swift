import PushgateBenchReport
import PushgateCommandLine

/// `pushgate-dev bench SUITE …`: benchmark figures, one JSON line per figure on standard output
/// (`{"name":…,"value":…,"unit":…}`) and a readable line on standard error. Scripts/bench
/// turns them into docs/performance.md.
///
/// A suite (`core`) times work on the calling thread per CPU-second; a driver (`apns`,
/// `relay-send`, …) loads another process that Scripts/bench started and takes its own options.
enum BenchCommand {
    /// One named group of CPU-timed measurements; Scripts/bench writes one `## <name>` section per suite.
    struct Suite: Sendable {
        let name: String
        let run: @Sendable (BenchMeter, (BenchResult) -> Void) throws -> Void
    }

    /// A load generator or input maker for a measurement across processes.
    struct Driver: Sendable {
        let name: String
        /// Its usage line, starting with `pushgate-dev bench <name>`.
        let usage: String
        let run: @Sendable (inout ArgumentList, (BenchFigure) -> Void) throws -> Void
    }

    /// Every suite, in the order Scripts/bench runs them.
    static let suites = [
        Suite(name: "core", run: BenchCoreSuite.run),
        Suite(name: "hapi", run: BenchHapiFanoutSuite.run),
    ]

    static let drivers = [
        Driver(name: "apns", usage: BenchAPNsSuite.usage, run: BenchAPNsSuite.run),
        Driver(name: "apns-token", usage: BenchAPNsSuite.tokenUsage, run: BenchAPNsSuite.token),
        Driver(name: "relay-presign", usage: BenchRelayPresign.usage, run: BenchRelayPresign.run),
        Driver(name: "relay-post", usage: BenchRelayPost.usage, run: BenchRelayPost.run),
        Driver(name: "relay-send", usage: BenchRelaySendSuite.usage, run: BenchRelaySendSuite.run),
        Driver(name: "host-events", usage: BenchHostEventsSuite.usage, run: BenchHostEventsSuite.run),
        Driver(name: "live-activity", usage: BenchLiveActivitySuite.usage, run: BenchLiveActivitySuite.run),
        Driver(name: "hapi-push", usage: BenchHapiPushSuite.usage, run: BenchHapiPushSuite.run),
        Driver(name: "gateway", usage: BenchGatewaySuite.usage, run: BenchGatewaySuite.run),
        Driver(name: "soak", usage: BenchSoakSuite.usage, run: BenchSoakSuite.run),
        Driver(name: "report", usage: "pushgate-dev bench report [--figures FILE] [--document FILE] [--charts DIR]") { arguments, _ in
            let figures = try arguments.option("figures").map { String(decoding: try ToolFile.read($0), as: UTF8.self) }
            let document = arguments.option("document") ?? "docs/performance.md", charts = arguments.option("charts")
            try arguments.finish()
            try BenchReport.run(figureLines: figures, document: document, chartsDirectory: charts)
        },
    ]

    static let usage = (["pushgate-dev bench \(suites.map(\.name).joined(separator: "|")) [--seconds N]"] + drivers.map(\.usage))
        .joined(separator: "\n")

    /// CPU seconds per figure when `--seconds` is not given (as Scripts/bench's `openssl speed -seconds 3`).
    static let defaultSeconds = 3.0

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        guard let name = arguments.nextPositional() else { throw UsageError("expected a suite name") }
        #if DEBUG
        ToolCommand.printError("pushgate-dev bench: debug build, figures are not representative (use swift build -c release)")
        #endif
        if let driver = drivers.first(where: { $0.name == name }) {
            try driver.run(&arguments, report)
            return 0
        }
        guard let suite = suites.first(where: { $0.name == name }) else { throw UsageError("unknown suite \(name)") }
        let seconds = try arguments.option("seconds").map(parseSeconds) ?? defaultSeconds
        try arguments.finish()
        try suite.run(BenchMeter(cpuSeconds: seconds)) { report($0.figure) }
        return 0
    }

    private static func report(_ figure: BenchFigure) {
        print(figure.jsonLine)
        ToolCommand.printError(figure.humanLine)
    }

    private static func parseSeconds(_ text: String) throws(UsageError) -> Double {
        guard let seconds = Double(text), seconds >= 0.01, seconds <= 600 else {
            throw UsageError("--seconds must be a number from 0.01 to 600")
        }
        return seconds
    }
}
