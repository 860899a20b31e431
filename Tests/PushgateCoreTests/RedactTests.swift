import Testing
import PushgateCore

@Suite struct RedactTests {
    @Test func tokenIsFirstEightHexOfSHA256() {
        #expect(Redact.token(String(repeating: "a", count: 64)) == "ffe054fe")
        #expect(Redact.token("tökén") == "c61a705e")
    }

    @Test func serverIdIsFirstFourChars() {
        #expect(Redact.serverId("gMqM1mPyH0V6wBKhGdbJXnB9WXgA7pRJHgIeqrT4KJk") == "gMqM")
        #expect(Redact.serverId("ab") == "ab")
    }
}
