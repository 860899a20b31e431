import Foundation

/// Where the scenarios' rows go: printed to standard output, and appended to the file named by
/// `PUSHGATE_FAULTS_TABLE` (which starts with the header), which `Scripts/faults` prints at the
/// end of its run.
enum FaultTable {
    static func append(_ tally: DeliveryTally) throws { try append(row: tally.row) }

    /// A row in the columns of ``DeliveryTally/header``.
    static func append(row: String) throws {
        print("faults: \(row)")
        guard let path = ProcessInfo.processInfo.environment["PUSHGATE_FAULTS_TABLE"], !path.isEmpty else { return }
        if !FileManager.default.fileExists(atPath: path) {
            try (DeliveryTally.header + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seekToEnd()
        try file.write(contentsOf: Data((row + "\n").utf8))
    }
}
