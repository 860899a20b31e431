/// A request field that breaks the wire contract: which field, and which rule.
///
/// The description never contains the submitted value (titles and tokens stay out of
/// logs and error bodies).
public struct WireFieldError: Error, Equatable, CustomStringConvertible {
    /// The field's path in the request, e.g. `contentState.items[1].status`.
    public let field: String
    /// The rule it breaks, e.g. `must be a finite number`.
    public let problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field) \(problem)" }
}
