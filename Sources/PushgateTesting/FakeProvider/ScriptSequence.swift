/// The answers scripted for one token: its successive valid requests take them in order, and
/// the last one repeats once they are used up.
struct ScriptSequence<Script> {
    private let steps: [Script]
    private var position = 0

    /// `steps` must not be empty.
    init(_ steps: [Script]) {
        precondition(!steps.isEmpty, "a script sequence needs at least one step")
        self.steps = steps
    }

    /// The answer for the next request, moving on unless it is the last.
    mutating func next() -> Script {
        defer { position = min(position + 1, steps.count - 1) }
        return steps[position]
    }
}
