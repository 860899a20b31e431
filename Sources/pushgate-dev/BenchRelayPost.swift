import PushgateCommandLine

/// `pushgate-dev bench relay-post`: posts every line of a file of bodies (from `relay-presign`)
/// once to one relay path, each answered 200, e.g. to give a relay an exact number of bindings.
enum BenchRelayPost {
    static let usage = "pushgate-dev bench relay-post --relay http://IPV4:PORT --path /v1/push/… --bodies FILE [--concurrency C]"

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let (host, port) = try BenchHTTPConnection.address(of: arguments.requiredOption("relay"))
        let path = try arguments.requiredOption("path")
        let file = try arguments.requiredOption("bodies")
        let concurrency = try arguments.wholeNumber("concurrency", in: 1...1_000, default: 16)
        try arguments.finish()

        let bodies = try ToolFile.read(file).split(separator: 0x0A).map(Array.init)
        guard bodies.count > concurrency else { throw ToolFailure("\(file) holds \(bodies.count) bodies; more than --concurrency are needed") }
        let run = try BenchHTTPLoad.post(bodies, to: path, threads: concurrency, host: host, port: port) { reply in
            guard reply.status == 200 else {
                throw ToolFailure("\(path) answered \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
        }
        let timed = bodies.count - concurrency
        let percentiles = run.latencies.milliseconds(percentiles: [0.5, 0.99])
        report(BenchFigure(name: "relay.post.requests_per_second", value: Double(timed) / run.wallSeconds, unit: "requests/s",
                           detail: "\(BenchFigure.grouped(bodies.count)) posted, \(BenchFigure.grouped(timed)) timed in "
                               + "\(BenchFigure.twoDecimals(run.wallSeconds)) s wall, \(concurrency) connections"))
        report(BenchFigure(name: "relay.post.latency_p50", value: percentiles[0], unit: "ms"))
        report(BenchFigure(name: "relay.post.latency_p99", value: percentiles[1], unit: "ms"))
    }
}
