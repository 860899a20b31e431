import Foundation

/// The PromQL expressions of docs/monitoring/: the alert rules' `expr` values and the Grafana
/// dashboard's queries (panel targets and template variables).
enum MonitoringFiles {
    static let alertsPath = "docs/monitoring/alerts.yml"
    static let dashboardPath = "docs/monitoring/grafana-dashboard.json"

    /// Each rule's `expr`, on one line or as a `|` block (the lines indented deeper than `expr:`).
    static func alertExpressions() throws -> [String] {
        let lines = try Repository.text(alertsPath).split(separator: "\n", omittingEmptySubsequences: false)
        var expressions: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indent)
            index += 1
            guard trimmed.hasPrefix("expr:") else { continue }
            let value = trimmed.dropFirst("expr:".count).trimmingCharacters(in: .whitespaces)
            guard value == "|" else {
                expressions.append(value)
                continue
            }
            var block: [Substring] = []
            while index < lines.count, lines[index].prefix(while: { $0 == " " }).count > indent || lines[index].isEmpty {
                block.append(lines[index])
                index += 1
            }
            expressions.append(block.joined(separator: "\n"))
        }
        return expressions
    }

    /// Every `expr` of the dashboard's panels, and every template variable's query.
    static func dashboardExpressions() throws -> [String] {
        let json = try JSONSerialization.jsonObject(with: Data(try Repository.text(dashboardPath).utf8))
        var expressions: [String] = []
        func walk(_ value: Any, key: String?) {
            if let object = value as? [String: Any] {
                for (key, value) in object { walk(value, key: key) }
            } else if let array = value as? [Any] {
                for element in array { walk(element, key: key) }
            } else if let text = value as? String, key == "expr" || text.hasPrefix("label_values(") {
                expressions.append(text)
            }
        }
        walk(json, key: nil)
        return expressions
    }
}
