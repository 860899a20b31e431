/// How iOS alert pushes leave the host: through the signed relay, straight to APNs, or not at all.
///
/// - Important: protocol/host-api.md §5 — `relay` is the default.
public enum IOSPushMode: String, Sendable, CaseIterable {
    case relay
    case apns
    case off
}
