import PushgateCommandLine

/// Whole-number options (the bench drivers, the fake servers' fault flags).
extension ArgumentList {
    /// The value of `--name` as a whole number within `range`; `defaultValue` when not given
    /// (nil: the option is required).
    mutating func wholeNumber(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int? = nil) throws(UsageError) -> Int {
        guard let value = try optionalWholeNumber(name, in: range) ?? defaultValue else { throw UsageError("--\(name) is required") }
        return value
    }

    /// The value of `--name` as a whole number within `range`, or nil when not given.
    mutating func optionalWholeNumber(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
