import Testing
@testable import PushgateCore

@Suite struct JSONObjectTests {
    @Test func keepsInsertionOrderAndReplacesInPlace() {
        var object = JSONObject([("b", .integer(1)), ("a", .string("x"))])
        object["b"] = .bool(true)
        object["c"] = .null
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == .bool(true))
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
    }
}
