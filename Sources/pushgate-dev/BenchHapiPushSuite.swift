import PushgateCommandLine
import PushgateCore

/// `pushgate-dev bench hapi-push`: `POST /v1/push` requests per second through a relay in front of
/// a fake APNs, as hapi hosts send them (one encrypted envelope to one iOS token each).
///
/// The relay limits each client IP to 300 and each token to 30 requests a minute, so the
/// relay runs with `--trust-proxy-hops 1` and every request carries an `X-Forwarded-For`: requests
/// cycle over enough addresses (≤ 250 each) and random tokens (≤ 25 each) that no bucket
/// empties and every answer must be 200. Bodies are built beforehand; each of `concurrency`
/// threads posts on one keep-alive connection (``BenchHTTPLoad``).
enum BenchHapiPushSuite {
    static let usage = "pushgate-dev bench hapi-push --relay http://IPV4:PORT --requests M --concurrency C   (relay with --trust-proxy-hops 1)"

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let (host, port) = try BenchHTTPConnection.address(of: arguments.requiredOption("relay"))
        let requests = try arguments.wholeNumber("requests", in: 1...1_000_000)
        let concurrency = try arguments.wholeNumber("concurrency", in: 1...1_000)
        try arguments.finish()

        let total = concurrency + requests
        let tokens = (0..<(total + 24) / 25).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        let network = Int(SecureRandom.bytes(1)[0])
        let envelope = try HapiEnvelope.seal(samplePayload.canonicalPlaintext, key: HapiPushKey.random())
        var bodies: [[UInt8]] = []
        var headerLines: [String] = []
        bodies.reserveCapacity(total)
        headerLines.reserveCapacity(total)
        for index in 0..<total {
            let token = tokens[index % tokens.count]
            let body = JSONObject([("platform", "ios"), ("token", .string(token)), ("envelope", .string(envelope)),
                                   ("collapseId", "permission-request-s1"), ("priority", 10)])
            bodies.append(JSONValue.object(body).serializedBytes())
            // Address i serves requests i, i + A, i + 2A…: at most 250 of them.
            let address = index % ((total + 249) / 250)
            headerLines.append("X-Forwarded-For: 10.\(network).\(address / 256).\(address % 256)\r\n")
        }
        let run = try BenchHTTPLoad.post(bodies, to: "/v1/push", threads: concurrency, host: host, port: port,
                                         headerLines: headerLines) { reply in
            guard reply.status == 200 else {
                throw ToolFailure("/v1/push answered \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
        }

        let seconds = run.wallSeconds
        let percentiles = run.latencies.milliseconds(percentiles: [0.5, 0.99])
        report(BenchFigure(name: "hapi_push.requests_per_second", value: Double(requests) / seconds, unit: "requests/s",
                           detail: "\(BenchFigure.grouped(requests)) requests with a \(envelope.utf8.count)-character envelope in "
                               + "\(BenchFigure.twoDecimals(seconds)) s wall, \(concurrency) connections"))
        report(BenchFigure(name: "hapi_push.latency_p50", value: percentiles[0], unit: "ms"))
        report(BenchFigure(name: "hapi_push.latency_p99", value: percentiles[1], unit: "ms"))
    }

    /// A permission request as a host composes it (about 300 bytes of canonical JSON).
    private static let samplePayload = HapiPayload(
        type: .permissionRequest, sessionId: "s1", sessionName: "pushgate: relay benchmark", url: "/sessions/s1",
        requestId: "req-7", title: "Permission Request",
        body: "Claude Bash: swift build -c release\nSession: pushgate: relay benchmark\nCommand: swift build -c release --product pushgate-relay",
        severity: .warning)
}
