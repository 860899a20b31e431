/// Why an ``HTTPServer`` could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Equatable {
    private enum Kind: Equatable {
        case invalidSetting(String, String)
        case invalidHost(String)
        case startFailed(errno: Int32, message: String)
    }

    private let kind: Kind

    /// A configuration value out of range.
    static func invalidSetting(_ setting: String, _ rule: String) -> HTTPServerError {
        HTTPServerError(kind: .invalidSetting(setting, rule))
    }

    /// A bind host that is not an IPv4 or IPv6 literal.
    static func invalidHost(_ host: String) -> HTTPServerError { HTTPServerError(kind: .invalidHost(host)) }

    /// libmicrohttpd refused to start (bind failure, port in use, …).
    static func startFailed(errno: Int32, message: String) -> HTTPServerError {
        HTTPServerError(kind: .startFailed(errno: errno, message: message))
    }

    /// The `errno` left by a failed start, or `nil`.
    public var errno: Int32? {
        if case .startFailed(let code, _) = kind { return code }
        return nil
    }

    public var description: String {
        switch kind {
        case .invalidSetting(let setting, let rule):
            return "HTTP server setting \(setting) must be \(rule)"
        case .invalidHost(let host):
            return "HTTP server host \(host) is not an IPv4 or IPv6 literal; use e.g. 127.0.0.1 or ::1"
        case .startFailed(let code, let message):
            return "MHD_start_daemon failed (errno \(code): \(message)); check that the address is local and the port free"
        }
    }
}
