import Foundation
import PushgateCommandLine

/// This process's memory and CPU use, for figures that Scripts/bench also reads for other
/// processes (`/proc/<pid>/status`).
enum BenchProcess {
    /// A memory line of `/proc/self/status` in KiB: `VmHWM` (peak resident) or `VmRSS`.
    static func memoryKiB(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            // "VmHWM:	   12345 kB"
            let words = line.split(whereSeparator: \.isWhitespace)
            if words.count == 3, words[2] == "kB", let value = Int(words[1]) { return value }
        }
        throw ToolFailure("/proc/self/status has no \(field) line")
    }

    /// User plus system CPU seconds of the whole process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        // Cannot fail for RUSAGE_SELF.
        precondition(getrusage(RUSAGE_SELF.rawValue, &usage) == 0, "getrusage failed")
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
