import Dispatch
import PushgateCore
import Testing
@testable import PushgateRelay

@Suite struct PublicKeyCacheTests {
    @Test func aBusyHostsKeyIsParsedOnceAndGetsItsTable() throws {
        let queue = DispatchQueue(label: "tables")
        let cache = PublicKeyCache(capacity: 8, tables: P256TableBudget(maxTables: 1, threshold: 2, queue: queue))
        let host = P256PrivateKey()
        let key = try #require(try cache.key(for: host.publicKey.jwk))
        #expect(try cache.key(for: host.publicKey.jwk) === key)
        let message = Array("register".utf8)
        let signature = try host.sign(message)
        for _ in 0..<2 { #expect(key.verify(signature: signature, message: message)) }
        queue.sync {}
        #expect(key.hasTable)
        #expect(key.verify(signature: signature, message: message))
        #expect(!key.verify(signature: signature, message: message + [0x20]))
    }

    @Test func aJWKWithAnExtraMemberIsRefusedEvenWhenItsPointIsCached() throws {
        let cache = PublicKeyCache(capacity: 8)
        let host = P256PrivateKey()
        _ = try cache.key(for: host.publicKey.jwk)
        var extra = host.publicKey.jwk
        extra["alg"] = .string("ES256")
        #expect(throws: RelayError.invalidRequest) { try cache.key(for: extra) }
    }

    /// Coordinates well encoded but off the curve are no key (the request's signature then fails,
    /// 401), unlike a broken encoding (400), which a schema can state.
    @Test func wellEncodedCoordinatesOffTheCurveAreNoKey() throws {
        let cache = PublicKeyCache(capacity: 8)
        var offCurve = P256PrivateKey().publicKey.jwk
        offCurve["y"] = offCurve["x"]
        #expect(try cache.key(for: offCurve) == nil)
        var short = offCurve
        short["y"] = .string("AAAA")
        #expect(throws: RelayError.invalidRequest) { try cache.key(for: short) }
    }
}
