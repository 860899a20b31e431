import PushgateCore
@testable import PushgateHost
import PushgateProviders

/// The started relay's bindings, reached around the host: a client of the test's own.
extension HostHarness {
    /// Removes the host's binding of `token` on the relay behind its back: an unregistration
    /// signed with the host's key by another client, so the host's cache still says "registered".
    func unbindBehindTheHostsBack(_ token: String, liveActivity: Bool = false) async throws {
        let client = SignedRelayClient(baseURL: relayURL, key: service.settings.signingKey, clock: clock)
        let reply = try await liveActivity ? client.unregisterLiveActivityToken(token) : client.unregisterToken(token)
        precondition(reply.isSuccess, "unregister answered \(reply.status)")
    }

}
