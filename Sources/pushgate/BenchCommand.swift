/// `pushgate bench SUITE [--seconds N]`: single-thread throughput figures per CPU-second, one
/// JSON line per figure on standard output (`{"name":…,"value":…,"unit":…}`) and a readable
/// line on standard error. Scripts/bench turns them into docs/performance.md.
enum BenchCommand {
    /// One named group of measurements; Scripts/bench writes one `## <name>` section per suite.
    struct Suite: Sendable {
        let name: String
        let run: @Sendable (BenchMeter, (BenchResult) -> Void) throws -> Void
    }

    /// Every suite, in the order Scripts/bench runs them.
    static let suites = [
        Suite(name: "core", run: BenchCoreSuite.run),
    ]

    static let usage = "pushgate bench \(suites.map(\.name).joined(separator: "|")) [--seconds N]"

    /// CPU seconds per figure when `--seconds` is not given (as Scripts/bench's `openssl speed -seconds 3`).
    static let defaultSeconds = 3.0

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        guard let name = arguments.nextPositional() else { throw UsageError("expected a suite name") }
        guard let suite = suites.first(where: { $0.name == name }) else { throw UsageError("unknown suite \(name)") }
        let seconds = try arguments.option("seconds").map(parseSeconds) ?? defaultSeconds
        try arguments.finish()
        #if DEBUG
        ToolCommand.printError("pushgate bench: debug build, figures are not representative (use swift build -c release)")
        #endif
        try suite.run(BenchMeter(cpuSeconds: seconds)) { result in
            print(result.jsonLine)
            ToolCommand.printError(result.humanLine)
        }
        return 0
    }

    private static func parseSeconds(_ text: String) throws(UsageError) -> Double {
        guard let seconds = Double(text), seconds >= 0.01, seconds <= 600 else {
            throw UsageError("--seconds must be a number from 0.01 to 600")
        }
        return seconds
    }
}
