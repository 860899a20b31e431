import PushgateCore
@testable import PushgateProviders
import Testing

@Suite("APNs provider token renewal")
struct APNsProviderTokenCacheTests {
    static let minute: Int64 = 60_000

    private static func cache(_ clock: ManualClock, key: P256PrivateKey = P256PrivateKey()) -> APNsProviderTokenCache {
        APNsProviderTokenCache(privateKey: key, keyId: "KEY1234567", teamId: "TEAM123456", clock: clock)
    }

    @Test("the token is an ES256 JWT with kid, iss and an integer iat in seconds")
    func format() throws {
        let clock = ManualClock(milliseconds: 1_764_669_600_999)
        let key = P256PrivateKey()
        let token = Self.cache(clock, key: key).token()
        let parts = try #require(JWT.verifyES256(token.jwt, publicKey: key.publicKey))
        #expect(parts.header == JSONObject([("alg", "ES256"), ("kid", "KEY1234567")]))
        #expect(parts.claims == JSONObject([("iss", "TEAM123456"), ("iat", .integer(1_764_669_600))]))
    }

    @Test("one token serves every request until it is 50 minutes old")
    func renewalAfter50Minutes() {
        let clock = ManualClock()
        let cache = Self.cache(clock)
        let first = cache.token()
        clock.advance(milliseconds: 50 * Self.minute - 1)
        #expect(cache.token() == first)
        clock.advance(milliseconds: 1)
        let second = cache.token()
        #expect(second != first)
        #expect(second.issuedAtMilliseconds == first.issuedAtMilliseconds + 50 * Self.minute)
    }

    @Test("ExpiredProviderToken renews only a token at least 20 minutes old")
    func renewalOnExpiry() {
        let clock = ManualClock()
        let cache = Self.cache(clock)
        let first = cache.token()
        clock.advance(milliseconds: 20 * Self.minute - 1)
        #expect(cache.renew(rejected: first) == first)
        clock.advance(milliseconds: 1)
        let second = cache.renew(rejected: first)
        #expect(second != first)
        #expect(cache.token() == second)
        // A late rejection of the old token does not renew again.
        clock.advance(milliseconds: 25 * Self.minute)
        #expect(cache.renew(rejected: first) == second)
    }

    @Test("a clock that moved back behind the token's issue time makes it renewable")
    func clockMovedBack() {
        let clock = ManualClock()
        let cache = Self.cache(clock)
        let first = cache.token()
        clock.advance(milliseconds: -Self.minute)
        #expect(cache.token() != first)
    }
}
