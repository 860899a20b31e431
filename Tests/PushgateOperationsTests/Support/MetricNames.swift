/// The metric names in PromQL expressions and in Prometheus exposition text.
enum MetricNames {
    /// PromQL words that are neither metrics nor followed by `(`.
    private static let keywords: Set<String> = ["by", "without", "on", "ignoring", "group_left", "group_right", "bool",
                                                "and", "or", "unless", "offset", "inf", "nan"]

    /// The metrics `expression` selects: what is left once strings, label matchers, ranges,
    /// grouping labels, Grafana variables, functions and keywords are taken out.
    /// `label_values(SELECTOR, LABEL)` (a Grafana variable's query) counts as its selector.
    static func inPromQL(_ expression: String) -> Set<String> {
        var text = expression.replacing(#/label_values\(([^,]*),[^)]*\)/#) { "(\($0.output.1))" }
        text = text.replacing(#/"(?:[^"\\]|\\.)*"/#, with: "")
        text = text.replacing(#/\{[^}]*\}/#, with: " ")
        text = text.replacing(#/\[[^\]]*\]/#, with: " ")
        text = text.replacing(#/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/#, with: " ")
        text = text.replacing(#/\$\{?\w+\}?/#, with: " ")
        var names: Set<String> = []
        for match in text.matches(of: #/[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?/#) where match.output.1 == nil {
            let word = String(match.output.0)
            // A word glued to a number's digits (`1e3`, `5m`) is not a name.
            if let before = text[..<match.range.lowerBound].last, before.isNumber || before == "." { continue }
            if !keywords.contains(word.lowercased()) { names.insert(word) }
        }
        return names
    }

    /// The metric names of a `/metrics` answer: every `# TYPE` line's and every sample's.
    static func inExposition(_ text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                names.insert(String(line.split(separator: " ")[2]))
            } else if !line.hasPrefix("#"), let name = line.split(whereSeparator: { $0 == "{" || $0 == " " }).first {
                names.insert(String(name))
            }
        }
        return names
    }
}
