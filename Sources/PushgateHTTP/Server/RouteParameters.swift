/// The values captured by a route's `:name` segments, looked up by name.
public struct RouteParameters: Sendable, Equatable {
    /// The parameter names, in pattern order.
    public let names: [String]
    /// The captured values, percent-decoded, in pattern order.
    public let values: [String]

    /// Parameters from matching names and values; `names.count` must equal `values.count`.
    public init(names: [String] = [], values: [String] = []) {
        precondition(names.count == values.count, "RouteParameters: \(names.count) names for \(values.count) values")
        self.names = names
        self.values = values
    }

    /// The value captured for `name`, or `nil` when the route has no such parameter.
    public subscript(name: String) -> String? {
        names.firstIndex(of: name).map { values[$0] }
    }
}
