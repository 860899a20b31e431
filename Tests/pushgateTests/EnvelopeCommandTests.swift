import Foundation
import PushgateCore
import Testing

@Suite struct EnvelopeCommandTests {
    static let vectorKey = Base64.encode(Array(0..<32))

    @Test func sealsAndOpensThePayloadCanonically() throws {
        let key = Base64.encode(SecureRandom.bytes(32))
        let payload = #"{"type":"ready","sessionId":"s1","title":"HAPI","body":"Ready for input","contractVersion":"1"}"#
        let sealed = try PushgateTool.run(["envelope", "seal", "--key", key, "--payload", payload])
        #expect(sealed.status == 0)
        let envelope = sealed.stdout.trimmingCharacters(in: .newlines)
        #expect(sealed.stdout == envelope + "\n")
        #expect(envelope.utf8.count == 164)
        let opened = try PushgateTool.run(["envelope", "open", "--key", String(key.dropLast()), "--envelope", envelope])
        #expect(opened.status == 0)
        #expect(opened.stdout == #"{"body":"Ready for input","contractVersion":"1","sessionId":"s1","title":"HAPI","type":"ready"}"# + "\n")
    }

    @Test func opensTheVectorsAndRefusesTampering() throws {
        let vectors = try JSONValue.parse(Array(try Data(contentsOf: PushgateTool.fixture("vectors/hapi-envelopes.json"))))
        for entry in try #require(vectors["cases"]?.arrayValue) {
            let envelope = try #require(entry["envelope"]?.stringValue)
            let opened = try PushgateTool.run(["envelope", "open", "--key", Self.vectorKey, "--envelope", envelope])
            #expect(opened.status == 0)
            #expect(opened.stdout == (entry["canonicalPlaintext"]?.stringValue ?? "") + "\n")
        }
        let tampered = try #require(vectors["tampered"]?["flipLastByte"]?.stringValue)
        let outcome = try PushgateTool.run(["envelope", "open", "--key", Self.vectorKey, "--envelope", tampered])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("authentication failed"))
        let otherKey = Base64.encode(Array(repeating: 9, count: 32))
        let ready = try #require(vectors["cases"]?.arrayValue?.first?["envelope"]?.stringValue)
        #expect(try PushgateTool.run(["envelope", "open", "--key", otherKey, "--envelope", ready]).status == 1)
    }

    @Test(arguments: [
        (Base64.encode(Array(repeating: 1, count: 31)), #"{"type":"ready","sessionId":"s","title":"t","body":"b","contractVersion":"1"}"#),
        (vectorKey, #"{"type":"ready","sessionId":"s","title":"t","body":"b","contractVersion":1}"#),
        (vectorKey, #"{"type":"ready","sessionId":"s","title":"t","body":"b"}"#),
        (vectorKey, #"{"type":"ready",}"#),
        (vectorKey, #"{"type":"ready","sessionId":"s","title":"t","contractVersion":"1","body":""# + String(repeating: "x", count: 2400) + #""}"#),
    ])
    func sealRefusesBadKeysAndPayloads(key: String, payload: String) throws {
        let outcome = try PushgateTool.run(["envelope", "seal", "--key", key, "--payload", payload])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(!outcome.stderr.isEmpty)
    }

    @Test(arguments: [["envelope"], ["envelope", "peel"], ["envelope", "seal", "--key", "k"], ["envelope", "open", "--envelope", "e"]])
    func usageErrorsExitWithStatus2(arguments: [String]) throws {
        #expect(try PushgateTool.run(arguments).status == 2)
    }
}
