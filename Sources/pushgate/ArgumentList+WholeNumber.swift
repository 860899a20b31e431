/// Whole-number options of the bench drivers.
extension ArgumentList {
    /// The value of `--name` as a whole number within `range`; `defaultValue` when not given
    /// (nil: the option is required).
    mutating func wholeNumber(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int? = nil) throws(UsageError) -> Int {
        guard let text = option(name) else {
            guard let defaultValue else { throw UsageError("--\(name) is required") }
            return defaultValue
        }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
