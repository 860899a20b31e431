import PushgateCore

/// `GET /metrics` on a listener of its own (the relay's `METRICS_LISTEN`, the host's
/// `PUSHGATE_METRICS_LISTEN`): the counters describe traffic and limits, which the public port
/// should not tell anyone who asks (docs/security.md, M9).
public final class MetricsListener: Sendable {
    public static let path = "/metrics"

    private let http: HTTPServer

    /// The port it listens on (the chosen one when configured as 0).
    public var port: UInt16 { http.port }

    /// Binds `address` and answers `GET /metrics` with `render()`; another method on it 405, any
    /// other path 404.
    public init(address: ListenAddress, logger: Logger, render: @escaping @Sendable () async -> String) throws {
        var router = Router()
        router.get(Self.path) { _ in
            HTTPResponse(status: 200, headers: ["content-type": "text/plain; version=0.0.4"], body: Array(await render().utf8))
        }
        // A scraper or two: a handful of connections, no request bodies.
        let configuration = HTTPServerConfiguration(host: address.host, port: address.port, connectionLimit: 16,
                                                    perIPConnectionLimit: 8, maxBodyBytes: 0,
                                                    defaultHeaders: ["cache-control": "no-store"],
                                                    logger: logger.named("metrics-http"))
        http = try HTTPServer(configuration: configuration, router: router)
    }

    public func stop() { http.stop() }
}
