import Testing
import PushgateCore

@Suite struct JSONAccessorTests {
    @Test func readsTypedValues() {
        let value: JSONValue = ["s": "x", "i": 3, "d": 2.0, "f": 2.5, "b": true, "a": [1], "o": ["k": nil]]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.int64Value == 3)
        #expect(value["d"]?.int64Value == 2)
        #expect(value["f"]?.int64Value == nil)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["i"]?.doubleValue == 3)
        #expect(value["b"]?.boolValue == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["o"]?["k"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["s"]?.int64Value == nil)
        #expect(JSONValue.string("x")["k"] == nil)
    }

    @Test func safeIntegersFollowNumberIsSafeInteger() {
        #expect(JSONValue.integer(9_007_199_254_740_991).safeIntegerValue == 9_007_199_254_740_991)
        #expect(JSONValue.integer(-9_007_199_254_740_991).safeIntegerValue == -9_007_199_254_740_991)
        #expect(JSONValue.integer(9_007_199_254_740_992).safeIntegerValue == nil)
        #expect(JSONValue.integer(.min).safeIntegerValue == nil)
        #expect(JSONValue.double(1764669600000).safeIntegerValue == 1_764_669_600_000)
        #expect(JSONValue.double(1.5).safeIntegerValue == nil)
    }
}
