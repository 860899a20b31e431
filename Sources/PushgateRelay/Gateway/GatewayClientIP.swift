import Foundation

/// The client address that selects a gateway per-IP bucket.
///
/// - Important: orca-gateway.md §9 — with N trusted hops, the N-th `X-Forwarded-For` entry
///   from the right (entries to its left are caller-written and never select the bucket);
///   fewer than N entries → the shared bucket `unknown`; N = 0 → the socket peer.
enum GatewayClientIP {
    static let unknown = "unknown"

    static func resolve(peer: String, forwardedFor: String?, trustedHops: Int) -> String {
        guard trustedHops > 0 else { return peer }
        let entries = (forwardedFor ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard entries.count >= trustedHops else { return unknown }
        return entries[entries.count - trustedHops]
    }
}
