import PushgateCore
import PushgateHTTP
import PushgateProviders
import Synchronization

/// The relay's FCM clients: one per service account it sends with — its project, client email
/// and key, the FCM origin, the token URI and the extra CA — shared by every lane that uses that account (hapi's
/// Android lane, the gateway's, the signed routes' Android tokens), so the lanes share one HTTP/2 pool and one cached access token
/// (docs/relay.md, "FCM"). A lane holds a ``Lease``; a client closes when the last lease on it ends.
final class RelayFCMClients: Sendable {
    /// What tells two clients apart.
    fileprivate struct Account: Hashable {
        let projectId: String
        let clientEmail: String
        /// Two key files of one account are two clients: each signs with its own key.
        let privateKeyId: String?
        let origin: HTTP2Origin
        let tokenURI: String
        /// A lane trusting another CA must not get a connection made with this one.
        let extraCAFile: String?
    }

    /// One lane's use of a shared client; ended once, at the lane's shutdown.
    struct Lease: Sendable {
        let client: FCMClient
        fileprivate let account: Account
        fileprivate let clients: RelayFCMClients

        /// Gives the client back; the last lease on it lets its requests finish and closes it.
        func end() async { await clients.end(self) }
    }

    private struct Shared {
        let client: FCMClient
        var leases: Int
    }

    private let shared = Mutex<[Account: Shared]>([:])

    init() {}

    /// A lease on the client for `settings`' account, made by this call when no lane holds one
    /// (`clock` then dates its OAuth assertions). Throws as ``FCMClient/init(configuration:clock:deadlineClock:logger:)``.
    func lease(_ settings: FCMAccountSettings, clock: any WallClock, logger: Logger) throws -> Lease {
        let configuration = FCMConfiguration(account: settings.account, origin: settings.origin, tokenURI: settings.tokenURI,
                                             extraCAFile: settings.extraCAFile)
        let account = Account(projectId: settings.account.projectId, clientEmail: settings.account.clientEmail,
                              privateKeyId: settings.account.privateKeyId, origin: configuration.origin,
                              tokenURI: configuration.tokenURI, extraCAFile: settings.extraCAFile)
        let client = try shared.withLock { shared in
            if let existing = shared[account] {
                shared[account]?.leases += 1
                return existing.client
            }
            let client = try FCMClient(configuration: configuration, clock: clock, logger: logger)
            shared[account] = Shared(client: client, leases: 1)
            return client
        }
        return Lease(client: client, account: account, clients: self)
    }

    private func end(_ lease: Lease) async {
        let unused = shared.withLock { shared -> FCMClient? in
            guard let entry = shared[lease.account] else { return nil }
            guard entry.leases == 1 else {
                shared[lease.account]?.leases -= 1
                return nil
            }
            shared[lease.account] = nil
            return entry.client
        }
        await unused?.shutdown()
    }
}
