import Foundation

/// One 10-second window of the soak: the load's rate and `POST /api/events` p99, and at its end
/// the resident memory (`VmRSS` of /proc/PID/status) and open descriptors (/proc/PID/fd) of the
/// relay and the host, and the host's outbox depth. A figure that could not be read (a process
/// being restarted) is nil.
struct SoakSample: Sendable {
    /// Seconds from the soak's start to the window's end.
    let second: Int
    let requestsPerSecond: Double
    let eventP99Ms: Double?
    let hostRSSKiB: Int?
    let hostDescriptors: Int?
    let relayRSSKiB: Int?
    let relayDescriptors: Int?
    let outboxDepth: Int?
    /// Requests the load sent again in the window.
    let resent: Int
    /// The faults done in the window.
    let faults: [String]

    /// The 1-based minute the window ends in.
    var minute: Int { (second - 1) / 60 + 1 }

    /// `VmRSS` of process `pid` in KiB.
    static func residentKiB(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            // "VmRSS:	   12345 kB"
            return line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// Open descriptors of process `pid`.
    static func descriptors(of pid: pid_t) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    static let header = "| s | requests/s | events p99 | host RSS | host fds | relay RSS | relay fds | outbox | resent | faults |\n"
        + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"

    /// The Markdown table row.
    var row: String {
        func show(_ value: Int?) -> String { value.map(String.init) ?? "–" }
        func mebibytes(_ kib: Int?) -> String { kib.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "–" }
        return "| \(second) | \(Int(requestsPerSecond.rounded())) | \(eventP99Ms.map { String(format: "%.1f ms", $0) } ?? "–") "
            + "| \(mebibytes(hostRSSKiB)) | \(show(hostDescriptors)) | \(mebibytes(relayRSSKiB)) | \(show(relayDescriptors)) "
            + "| \(show(outboxDepth)) | \(resent) | \(faults.joined(separator: ", ")) |"
    }
}
