import PushgateCommandLine
import PushgateCore

/// `pushgate-dev bench relay-send`: signed `send` requests per second through a relay that
/// Scripts/bench runs in front of a fake APNs (and a fake FCM for `--android-tokens`, the
/// number of each request's tokens registered as Android ones). Registers its tokens first, signs every request
/// beforehand (each with its own signature, so none is a replay), then posts them from
/// `concurrency` threads, one keep-alive connection each (``BenchHTTPLoad``).
enum BenchRelaySendSuite {
    static let usage = "pushgate-dev bench relay-send --relay http://IPV4:PORT --key FILE --tokens-per-request N "
        + "--requests M --concurrency C [--android-tokens K]"

    private static let title = "Build finished on relay-01"
    private static let body = "The agent finished the task and is waiting for your next instruction."

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let (host, port) = try BenchHTTPConnection.address(of: arguments.requiredOption("relay"))
        let key = try ToolFile.privateKey(arguments.requiredOption("key"))
        let tokensPerRequest = try arguments.wholeNumber("tokens-per-request", in: 1...100)
        let requests = try arguments.wholeNumber("requests", in: 1...1_000_000)
        let concurrency = try arguments.wholeNumber("concurrency", in: 1...1_000)
        let androidTokens = try arguments.wholeNumber("android-tokens", in: 0...tokensPerRequest, default: 0)
        try arguments.finish()

        let signer = RelayRequestSigner(key: key)
        // APNs tokens first, then FCM-shaped ones (an instance id, `:`, a base64url body).
        let tokens = (0..<tokensPerRequest).map { index in
            index < tokensPerRequest - androidTokens ? Hex.encode(SecureRandom.bytes(32))
                : "b" + Hex.encode(SecureRandom.bytes(10)) + ":APA91b" + Base64URL.encode(SecureRandom.bytes(105))
        }
        let registrar = try BenchHTTPConnection(host: host, port: port)
        for (index, token) in tokens.enumerated() {
            let platform = index < tokensPerRequest - androidTokens ? "ios" : "android"
            let reply = try registrar.post("/v1/push/register-token",
                                           body: signer.registerToken(token, platform: platform, ts: SystemClock().nowMilliseconds))
            guard reply.status == 200 else { throw ToolFailure("register-token (\(platform)) answered \(reply.status)") }
        }
        // One warm-up request per connection, then the timed ones; each signed now, so each is fresh.
        let bodies = try (0..<(concurrency + requests)).map { _ in
            try signer.send(tokens: tokens, title: title, body: body, ts: SystemClock().nowMilliseconds)
        }
        let run = try BenchHTTPLoad.post(bodies, to: "/v1/push/send", threads: concurrency, host: host, port: port) { reply in
            try check(reply, expectedOK: tokensPerRequest)
        }

        let name = androidTokens == 0 ? "relay.send_\(tokensPerRequest)" : "relay.send_\(tokensPerRequest)_android_\(androidTokens)"
        let seconds = run.wallSeconds
        let percentiles = run.latencies.milliseconds(percentiles: [0.5, 0.99])
        report(BenchFigure(name: "\(name).requests_per_second", value: Double(requests) / seconds, unit: "requests/s",
                           detail: "\(BenchFigure.grouped(requests)) requests of \(tokensPerRequest) token(s) "
                               + (androidTokens == 0 ? "" : "(\(androidTokens) Android) ") + "in "
                               + "\(BenchFigure.twoDecimals(seconds)) s wall, \(concurrency) connections"))
        report(BenchFigure(name: "\(name).tokens_per_second", value: Double(requests * tokensPerRequest) / seconds, unit: "tokens/s"))
        report(BenchFigure(name: "\(name).latency_p50", value: percentiles[0], unit: "ms"))
        report(BenchFigure(name: "\(name).latency_p99", value: percentiles[1], unit: "ms"))
    }

    /// A 200 whose results accept every token.
    private static func check(_ reply: BenchHTTPConnection.Reply, expectedOK: Int) throws {
        guard reply.status == 200 else {
            throw ToolFailure("send answered \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        let accepted = Array(#""ok":true"#.utf8)
        var found = 0
        var index = reply.body.startIndex
        while index + accepted.count <= reply.body.endIndex {
            if reply.body[index..<(index + accepted.count)].elementsEqual(accepted) {
                found += 1
                index += accepted.count
            } else {
                index += 1
            }
        }
        guard found == expectedOK else {
            throw ToolFailure("send accepted \(found) of \(expectedOK) tokens: \(String(decoding: reply.body.suffix(300), as: UTF8.self))")
        }
    }
}
