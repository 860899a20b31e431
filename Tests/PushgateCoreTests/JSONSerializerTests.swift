import Testing
import PushgateCore

@Suite struct JSONSerializerTests {
    @Test func keepsMemberOrderAndWritesCompactly() {
        let value: JSONValue = ["b": 1, "a": ["x", false, nil], "c": [:]]
        #expect(value.serialized() == #"{"b":1,"a":["x",false,null],"c":{}}"#)
        #expect(JSONValue.array([]).serialized() == "[]")
    }

    @Test func writesNumbersTheJavaScriptWay() {
        let value: JSONValue = [.integer(.min), .integer(.max), -0.0, 1e21, 1e-7, 1736400000.123, 100.0]
        #expect(value.serialized() == "[-9223372036854775808,9223372036854775807,0,1e+21,1e-7,1736400000.123,100]")
    }

    @Test func writesNonFiniteDoublesAsNull() {
        let value: JSONValue = [.double(.nan), .double(.infinity)]
        #expect(value.serialized() == "[null,null]")
    }

    @Test func leavesSlashAndNonASCIIRaw() {
        let value: JSONValue = ["url": "/sessions/s1", "t": "完成 😀 \u{2029}"]
        #expect(value.serializedBytes() == Array(#"{"url":"/sessions/s1","t":"完成 😀 \#u{2029}"}"#.utf8))
    }

    @Test func objectHelpersMatchTheValueForms() {
        let object: JSONObject = ["b": 1, "a": 2]
        #expect(object.serialized() == #"{"b":1,"a":2}"#)
        #expect(object.canonicalized() == #"{"a":2,"b":1}"#)
    }

    @Test func roundTripsThroughTheParser() throws {
        let text = #"{"k":[1,-2.5,"\u0000\"\\",true,null,{"é":{}}],"big":12345678901234567890}"#
        let value = try JSONValue.parse(text)
        #expect(value.serialized() == #"{"k":[1,-2.5,"\u0000\"\\",true,null,{"é":{}}],"big":12345678901234567000}"#)
        #expect(try JSONValue.parse(value.serialized()) == value)
    }
}
