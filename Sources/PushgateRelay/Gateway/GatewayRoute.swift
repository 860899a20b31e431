/// The gateway's routes: method, path pattern, and whether a bearer session is required.
///
/// - Important: protocol/gateway.md §1 — the gateway is served at the root of the relay's origin.
enum GatewayRoute: String, CaseIterable, Sendable {
    case challenge, session, registerDevice, deleteDevice, listDevices, send, health, ready

    var method: String {
        switch self {
        case .challenge, .session, .registerDevice, .send: "POST"
        case .deleteDevice: "DELETE"
        case .listDevices, .health, .ready: "GET"
        }
    }

    var pattern: String {
        switch self {
        case .challenge: "/v1/host/challenge"
        case .session: "/v1/host/session"
        case .registerDevice, .listDevices: "/v1/devices"
        case .deleteDevice: "/v1/devices/:registrationId"
        case .send: "/v1/send"
        case .health: "/health"
        case .ready: "/ready"
        }
    }

    /// The name used in metrics (`gateway-…`).
    var metricName: String {
        switch self {
        case .challenge: "gateway-challenge"
        case .session: "gateway-session"
        case .registerDevice: "gateway-device-register"
        case .deleteDevice: "gateway-device-delete"
        case .listDevices: "gateway-device-list"
        case .send: "gateway-send"
        case .health: "gateway-health"
        case .ready: "gateway-ready"
        }
    }

    /// Challenge and session share the handshake bucket and need no bearer.
    var isHandshake: Bool { self == .challenge || self == .session }

    /// Routes that need `Authorization: Bearer <session token>`.
    var isAuthenticated: Bool {
        switch self {
        case .registerDevice, .deleteDevice, .listDevices, .send: true
        default: false
        }
    }

    /// The route for a matched method and pattern.
    static func matching(method: String, pattern: String?) -> GatewayRoute? {
        allCases.first { $0.pattern == pattern && ($0.method == method || (method == "HEAD" && $0.method == "GET")) }
    }
}
