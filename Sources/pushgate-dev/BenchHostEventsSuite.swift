import PushgateCommandLine
import PushgateCore

/// `pushgate-dev bench host-events`: events per second through a `pushgate-host` that Scripts/bench
/// runs in front of a relay and a fake APNs. Registers `--tokens` device tokens through the host
/// API (locales taken in turn from `--locales`), then posts `ready` events, each for its own
/// session so no cooldown applies, from `concurrency` keep-alive connections. Every answer must
/// report every token accepted.
enum BenchHostEventsSuite {
    static let usage = "pushgate-dev bench host-events --host http://IPV4:PORT --access-token TOKEN --tokens N "
        + "--locales en,fr,ja --events M --concurrency C"

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let (host, port) = try BenchHTTPConnection.address(of: arguments.requiredOption("host"))
        let accessToken = try arguments.requiredOption("access-token")
        let tokenCount = try arguments.wholeNumber("tokens", in: 1...10_000)
        let locales = try arguments.requiredOption("locales").split(separator: ",").map(String.init)
        let events = try arguments.wholeNumber("events", in: 1...1_000_000)
        let concurrency = try arguments.wholeNumber("concurrency", in: 1...1_000)
        try arguments.finish()
        guard !locales.isEmpty else { throw UsageError("--locales needs at least one locale") }

        let api = try BenchHTTPConnection(host: host, port: port, bearer: accessToken)
        for index in 0..<tokenCount {
            let body = JSONObject([("token", .string(Hex.encode(SecureRandom.bytes(32)))),
                                   ("locale", .string(locales[index % locales.count]))])
            let reply = try api.post("/api/push/apns-token", body: Array(body.serialized().utf8))
            guard reply.status == 200 else { throw ToolFailure("registering a token answered \(reply.status)") }
        }
        // A run id, so sessions of two runs against the same host never meet a cooldown.
        let run = Hex.encode(SecureRandom.bytes(4))
        let bodies = (0..<(concurrency + events)).map { index in
            Array(JSONObject([("type", "ready"), ("sessionId", .string("bench-\(run)-\(index)")),
                              ("sessionName", .string("Session \(index)"))]).serialized().utf8)
        }
        let expected = Array(#""accepted":\#(tokenCount),"#.utf8)
        let load = try BenchHTTPLoad.post(bodies, to: "/api/events", threads: concurrency, host: host, port: port,
                                          bearer: accessToken) { reply in
            // The result starts with the event id; the count follows.
            guard reply.status == 200, reply.body.firstRange(of: expected) != nil else {
                throw ToolFailure("an event answered \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
        }

        let name = "host.events_\(tokenCount)"
        let seconds = load.wallSeconds
        let percentiles = load.latencies.milliseconds(percentiles: [0.5, 0.99])
        report(BenchFigure(name: "\(name).events_per_second", value: Double(events) / seconds, unit: "events/s",
                           detail: "\(BenchFigure.grouped(events)) events to \(tokenCount) token(s) in \(locales.count) "
                               + "locale(s) in \(BenchFigure.twoDecimals(seconds)) s wall, \(concurrency) connections"))
        report(BenchFigure(name: "\(name).pushes_per_second", value: Double(events * tokenCount) / seconds, unit: "pushes/s"))
        report(BenchFigure(name: "\(name).latency_p50", value: percentiles[0], unit: "ms"))
        report(BenchFigure(name: "\(name).latency_p99", value: percentiles[1], unit: "ms"))
    }
}
