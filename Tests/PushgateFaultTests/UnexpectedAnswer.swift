/// The host answered something a scenario cannot go on from (not a delivery figure: those are
/// counted, not thrown).
struct UnexpectedAnswer: Error, CustomStringConvertible {
    let description: String
}
