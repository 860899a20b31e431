import PushgateCore

/// One reported number: a JSON line for Scripts/bench and a readable line for people.
struct BenchFigure {
    /// Dotted name, `<suite>.<metric>`, e.g. `apns.pushes_per_second`.
    let name: String
    let value: Double
    /// What the value counts, e.g. `pushes/s` or `ms`.
    let unit: String
    /// How the value was obtained (counts, times), for the readable line only.
    var detail = ""

    /// The machine-readable line Scripts/bench parses: `{"name":…,"value":…,"unit":…}`.
    var jsonLine: String {
        let rounded = (value * 1000).rounded() / 1000
        return JSONObject([("name", .string(name)), ("value", .double(rounded)), ("unit", .string(unit))]).serialized()
    }

    /// Name, value (thousands grouped, or two decimals below 100) and unit, then the detail.
    var humanLine: String {
        let padded = name + String(repeating: " ", count: max(1, 28 - name.count))
        let shown = value < 100 ? Self.twoDecimals(value) : Self.grouped(Int(value.rounded()))
        return "\(padded)\(shown) \(unit)" + (detail.isEmpty ? "" : "  (\(detail))")
    }

    /// `1234567` → `1 234 567`.
    static func grouped(_ number: Int) -> String {
        var digits = String(number.magnitude)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(Substring(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(Substring(digits), at: 0)
        return (number < 0 ? "-" : "") + groups.joined(separator: " ")
    }

    /// `3.14159` → `3.14`.
    static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
