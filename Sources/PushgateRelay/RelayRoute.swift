/// The relay's routes; the raw value is the path.
public enum RelayRoute: String, Sendable, CaseIterable {
    case registerToken = "/v1/push/register-token"
    case unregisterToken = "/v1/push/unregister-token"
    case registerLiveActivityToken = "/v1/push/register-live-activity-token"
    case unregisterLiveActivityToken = "/v1/push/unregister-live-activity-token"
    case send = "/v1/push/send"
    case liveActivity = "/v1/push/live-activity"
    /// **Extension**: a silent push that removes delivered notifications (docs/relay.md "Background").
    case background = "/v1/push/background"
    case healthz = "/healthz"
    case readyz = "/readyz"

    /// The short name used in metrics, logs and replay keys.
    public var name: String {
        switch self {
        case .registerToken: "register"
        case .unregisterToken: "unregister"
        case .registerLiveActivityToken: "register-la"
        case .unregisterLiveActivityToken: "unregister-la"
        case .send: "send"
        case .liveActivity: "live-activity"
        case .background: "background"
        case .healthz: "healthz"
        case .readyz: "readyz"
        }
    }

    /// Register and unregister routes share the register limit; the delivering routes the send limits.
    var isRegistration: Bool {
        switch self {
        case .registerToken, .unregisterToken, .registerLiveActivityToken, .unregisterLiveActivityToken: true
        default: false
        }
    }

    /// Routes that deliver to the tokens of a signed request: `send`, `live-activity`, `background`.
    var delivers: Bool { self == .send || self == .liveActivity || self == .background }

    /// Routes with a signed JSON body (POST only).
    var isSigned: Bool { isRegistration || delivers }
}
