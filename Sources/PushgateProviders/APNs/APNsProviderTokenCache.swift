import PushgateCore
import Synchronization

/// The one ES256 provider token of a signing key, shared by every request and connection.
///
/// - Important: renewed once it is 50 minutes old; never two tokens within 20 minutes, even when
///   APNs answers `ExpiredProviderToken` (protocol/signed-relay.md §7).
final class APNsProviderTokenCache: Sendable {
    /// A token and when it was made.
    struct Token: Sendable, Equatable {
        let jwt: String
        let issuedAtMilliseconds: Int64
        /// The `authorization` header value, made once per token instead of once per push.
        let authorization: String

        init(jwt: String, issuedAtMilliseconds: Int64) {
            self.jwt = jwt
            self.issuedAtMilliseconds = issuedAtMilliseconds
            authorization = "bearer " + jwt
        }
    }

    static let renewAfterMilliseconds: Int64 = 50 * 60 * 1000
    static let minimumIntervalMilliseconds: Int64 = 20 * 60 * 1000

    private let privateKey: P256PrivateKey
    private let keyId: String
    private let teamId: String
    private let clock: any WallClock
    private let current = Mutex<Token?>(nil)

    init(privateKey: P256PrivateKey, keyId: String, teamId: String, clock: any WallClock) {
        self.privateKey = privateKey
        self.keyId = keyId
        self.teamId = teamId
        self.clock = clock
    }

    /// The token to send now: the cached one until it is 50 minutes old.
    func token() -> Token {
        let now = clock.nowMilliseconds
        return current.withLock { current in
            if let token = current, !Self.isOlder(token, than: Self.renewAfterMilliseconds, now: now) { return token }
            return issue(now: now, into: &current)
        }
    }

    /// APNs said `rejected` expired: a new token, unless one was already made after it or the
    /// current one is younger than 20 minutes (then the current one is returned).
    func renew(rejected: Token) -> Token {
        let now = clock.nowMilliseconds
        return current.withLock { current in
            guard let token = current else { return issue(now: now, into: &current) }
            guard token == rejected, Self.isOlder(token, than: Self.minimumIntervalMilliseconds, now: now) else { return token }
            return issue(now: now, into: &current)
        }
    }

    /// Age at least `limit`; a clock that went back past the issue time also counts as old.
    private static func isOlder(_ token: Token, than limit: Int64, now: Int64) -> Bool {
        let age = now - token.issuedAtMilliseconds
        return age >= limit || age < 0
    }

    private func issue(now: Int64, into current: inout Token?) -> Token {
        let seconds = now / 1000
        let token = Token(jwt: APNsProviderToken.make(key: privateKey, keyId: keyId, teamId: teamId, issuedAt: seconds),
                          issuedAtMilliseconds: now)
        current = token
        return token
    }
}
