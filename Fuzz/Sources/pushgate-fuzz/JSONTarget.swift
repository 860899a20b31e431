import PushgateCore

/// The strict JSON parser. What it accepts, both serializers write back to bytes the parser
/// reads again and that serialize to themselves: a value never changes on a second round.
enum JSONTarget {
    static let target = FuzzTarget("json") { input in
        guard let value = try? JSONValue.parse(Array(input)) else { return }
        for serialize in [{ (value: JSONValue) in value.serializedBytes() }, { (value: JSONValue) in value.canonicalBytes() }] {
            let bytes = serialize(value)
            guard let again = try? JSONValue.parse(bytes) else { preconditionFailure("the parser refuses its own output") }
            precondition(serialize(again) == bytes, "a second round changes the serialized value")
        }
    }
}
