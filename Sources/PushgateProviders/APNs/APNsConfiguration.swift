import PushgateCore
import PushgateHTTP

/// Credentials, endpoints and connection limits of an ``APNsClient``.
public struct APNsConfiguration: Sendable {
    /// The `.p8` signing key.
    public var privateKey: P256PrivateKey
    /// The key's 10-character id (`kid`).
    public var keyId: String
    /// The Apple developer team id (`iss`).
    public var teamId: String
    public var productionOrigin: HTTP2Origin
    public var sandboxOrigin: HTTP2Origin
    /// Connection limits and timings; `extraCAFile` adds a trusted CA (for a local fake APNs).
    ///
    /// - Important: response bodies are read up to 4 KiB (protocol/signed-relay.md §7): the default
    ///   `maxResponseBodyBytes` here is 4096.
    public var http2: HTTP2ClientConfiguration

    /// Apple's production service.
    public static let appleProduction = HTTP2Origin(host: "api.push.apple.com", port: 443)
    /// Apple's sandbox service.
    public static let appleSandbox = HTTP2Origin(host: "api.sandbox.push.apple.com", port: 443)

    public init(privateKey: P256PrivateKey, keyId: String, teamId: String,
                productionOrigin: HTTP2Origin = APNsConfiguration.appleProduction,
                sandboxOrigin: HTTP2Origin = APNsConfiguration.appleSandbox, extraCAFile: String? = nil) {
        self.privateKey = privateKey
        self.keyId = keyId
        self.teamId = teamId
        self.productionOrigin = productionOrigin
        self.sandboxOrigin = sandboxOrigin
        var http2 = HTTP2ClientConfiguration(extraCAFile: extraCAFile)
        http2.maxResponseBodyBytes = 4096
        self.http2 = http2
    }

    /// The origin serving `environment`.
    public func origin(for environment: APNsEnvironment) -> HTTP2Origin {
        switch environment {
        case .production: return productionOrigin
        case .sandbox: return sandboxOrigin
        }
    }
}
