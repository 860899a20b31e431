#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Times one operation on the calling thread and reports its rate per CPU-second.
///
/// Rates divide by the thread's CPU time (user + system), as `openssl speed` divides by user
/// CPU time: on a shared machine, wall-clock rates would measure the other tenants.
struct BenchMeter {
    /// CPU time each measurement runs for, after a short warm-up.
    let cpuSeconds: Double

    /// Operations between clock readings: keeps the clock out of sub-microsecond timings.
    private static let batch = 16

    /// Runs `operation` repeatedly for `cpuSeconds` of this thread's CPU time and returns its
    /// rate. `operation` returns a number derived from its result (a length, a flag) that is
    /// summed, so the optimizer cannot drop the work being measured.
    func measure(_ name: String, unit: String, _ operation: () throws -> Int) rethrows -> BenchResult {
        var sink = 0
        _ = try run(for: min(0.2, cpuSeconds / 10), operation, sink: &sink)
        let wallStart = ContinuousClock.now
        let (count, cpu) = try run(for: cpuSeconds, operation, sink: &sink)
        let wall = wallStart.duration(to: .now)
        precondition(sink != 0, "a benchmarked operation produced nothing")
        let wallSeconds = wall.inSeconds
        return BenchResult(name: name, unit: unit, iterations: count, cpuSeconds: cpu, wallSeconds: wallSeconds)
    }

    private func run(for limit: Double, _ operation: () throws -> Int, sink: inout Int) rethrows -> (Int, Double) {
        let start = Self.threadCPUTime()
        var count = 0
        var elapsed = 0.0
        repeat {
            for _ in 0..<Self.batch { sink &+= try operation() }
            count += Self.batch
            elapsed = Self.threadCPUTime() - start
        } while elapsed < limit
        return (count, elapsed)
    }

    /// CPU seconds the calling thread has used.
    private static func threadCPUTime() -> Double {
        var time = timespec()
        // Cannot fail for this clock id on Linux or macOS.
        precondition(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed")
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
}

/// One benchmark figure: `iterations` operations in `cpuSeconds` of thread CPU time.
struct BenchResult {
    /// Dotted name, `<suite>.<metric>`, e.g. `core.p256_verify`.
    let name: String
    /// What the rate counts, e.g. `verifications/s`.
    let unit: String
    let iterations: Int
    let cpuSeconds: Double
    /// Wall-clock time of the same run; far above `cpuSeconds` when other processes compete.
    let wallSeconds: Double

    /// Operations per CPU-second.
    var rate: Double { Double(iterations) / cpuSeconds }

    /// The rate as a figure, with the raw count and times as its detail.
    var figure: BenchFigure {
        BenchFigure(name: name, value: rate, unit: unit,
                    detail: "\(BenchFigure.grouped(iterations)) in \(BenchFigure.twoDecimals(cpuSeconds)) CPU-s, "
                        + "\(BenchFigure.twoDecimals(wallSeconds)) s wall")
    }
}
