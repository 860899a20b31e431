import Foundation

/// The first Markdown table under a heading of one of the repository's docs, as cells with
/// their backticks taken out: what tests compare with a table in the code.
public enum DocumentTable {
    /// The package root: this file lives in Tests/PushgateTestSupport/.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The body rows of the first table after the line `heading` in `document` (a path from
    /// the package root), each as its first `columns` cells, trimmed; cells further right (free
    /// text, which may hold a `|`) are not split.
    public static func rows(in document: String, under heading: String, columns: Int) throws -> [[String]] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let headingIndex = lines.firstIndex(of: heading) else { return [] }
        let table = lines[(headingIndex + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        // The header row and the |---| line.
        return table.dropFirst(2).map { line in
            line.split(separator: "|", maxSplits: columns + 1, omittingEmptySubsequences: false)
                .dropFirst().prefix(columns).map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The words in backticks in `cell`, in order: `` `A` (alias `B`) `` → A, B.
    public static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The cell as plain text: backticks taken out.
    public static func plain(_ cell: String) -> String { cell.replacingOccurrences(of: "`", with: "") }
}
