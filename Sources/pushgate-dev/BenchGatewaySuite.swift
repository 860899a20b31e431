import PushgateCommandLine
import PushgateCore
import PushgateHTTP
import Synchronization

/// `pushgate-dev bench gateway`: gateway handshakes per second and `POST /v1/send` requests per
/// second with quota accounting, against a relay that runs the gateway (`--dry-run`,
/// `PUSHGATE_GATEWAY_TRUSTED_PROXY_HOPS=1`). Each simulated host has its own key pair and its
/// own `X-Forwarded-For` address, so the per-IP buckets of protocol/gateway.md §9 meter each host
/// as a proxy in front would. Phases: handshakes (timed), one registration per host, then
/// 60 sends each (timed: the whole hourly host quota, so every one is counted, charged and
/// queued), then `--refused-per-host` more each (timed: every one counted and refused).
enum BenchGatewaySuite {
    static let usage = "pushgate-dev bench gateway --gateway http://IPV4:PORT --origin ORIGIN --hosts N "
        + "[--refused-per-host R] --concurrency C"

    /// One simulated desktop.
    private struct Host: Sendable {
        let answerer: HostChallengeAnswerer
        /// Its address as the trusted proxy reports it.
        let address: String
    }

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let gateway = try arguments.requiredOption("gateway")
        _ = try BenchHTTPConnection.address(of: gateway)
        let origin = try arguments.requiredOption("origin")
        let hostCount = try arguments.wholeNumber("hosts", in: 1...60_000)
        let refusedPerHost = try arguments.wholeNumber("refused-per-host", in: 1...1_000, default: 10)
        let concurrency = try arguments.wholeNumber("concurrency", in: 1...256)
        try arguments.finish()
        if let problem = GatewayOrigin.problem(with: origin) { throw UsageError("--origin \(problem)") }

        var configuration = HTTP1Client.Configuration()
        configuration.maxConnections = concurrency
        let client = HTTP1Client(configuration: configuration)
        defer { client.shutdown() }
        let hosts = try (0..<hostCount).map { index in
            Host(answerer: HostChallengeAnswerer(keyPair: try BoxKeyPair.generate(), gatewayOrigin: origin),
                 address: "10.\(index >> 16 & 0xFF).\(index >> 8 & 0xFF).\(index & 0xFF)")
        }

        let sessions = Mutex([String?](repeating: nil, count: hostCount))
        let handshakes = try phase(count: hostCount, concurrency: concurrency) { index in
            let host = hosts[index]
            let challengeReply = try await post(client, gateway + "/v1/host/challenge", host.answerer.challengeRequest, host)
            let challenge = try GatewayChallenge(json: try JSONValue.parse(challengeReply.body))
            let proof = try host.answerer.answer(challenge, nowMs: SystemClock().nowMilliseconds)
            let sessionReply = try await post(client, gateway + "/v1/host/session",
                                              host.answerer.sessionRequest(challengeId: challenge.challengeId, proof: proof), host)
            let token = try host.answerer.acceptSession(try JSONValue.parse(sessionReply.body)).sessionToken
            sessions.withLock { $0[index] = token }
        }
        figures("gateway.handshake", "handshakes/s", handshakes, count: hostCount, concurrency: concurrency, report: report)

        let registrations = Mutex([String](repeating: "", count: hostCount))
        _ = try phase(count: hostCount, concurrency: concurrency) { index in
            let body: JSONValue = ["v": 1, "deviceId": "bench", "platform": "ios", "token": .string(Hex.encode(SecureRandom.bytes(32))),
                                   "apnsEnvironment": "production", "filter": ["sources": [], "agentStates": []]]
            let reply = try await post(client, gateway + "/v1/devices", body, hosts[index], bearer: sessions.withLock { $0[index] })
            guard let id = try JSONValue.parse(reply.body)["registrationId"]?.stringValue else { throw ToolFailure("no registrationId") }
            registrations.withLock { $0[index] = id }
        }

        let phases = [("gateway.send_queued", "queued", 60), ("gateway.send_over_quota", "rate_limited", refusedPerHost)]
        for (name, expected, perHost) in phases {
            let sendCount = hostCount * perHost
            let run = try phase(count: sendCount, concurrency: concurrency) { index in
                let hostIndex = index % hostCount
                let id = registrations.withLock { $0[hostIndex] }
                let body: JSONValue = ["v": 1, "registrationIds": [.string(id)], "notification": [
                    "notificationSeq": .integer(Int64(index)), "notificationEpoch": "bench", "source": "agent-task-complete",
                    "agentState": "needs-input", "title": "Agent needs input", "body": "Waiting on your answer"]]
                let reply = try await post(client, gateway + "/v1/send", body, hosts[hostIndex], bearer: sessions.withLock { $0[hostIndex] })
                guard try JSONValue.parse(reply.body)["results"]?.arrayValue?.first?["status"]?.stringValue == expected else {
                    throw ToolFailure("a send was not \(expected): \(String(decoding: reply.body, as: UTF8.self))")
                }
            }
            figures(name, "requests/s", run, count: sendCount, concurrency: concurrency, report: report)
        }
    }

    /// Runs `work(0..<count)` with at most `concurrency` at once; the wall time and each call's latency.
    private static func phase(count: Int, concurrency: Int,
                              _ work: @escaping @Sendable (Int) async throws -> Void) throws -> BenchHTTPLoad.Run {
        try AsyncBridge.wait {
            let began = ContinuousClock.now
            let latencies = try await withThrowingTaskGroup(of: Duration.self) { group in
                var next = 0
                var latencies = BenchLatencies(capacity: count)
                func start(_ index: Int) {
                    group.addTask {
                        let sent = ContinuousClock.now
                        try await work(index)
                        return sent.duration(to: .now)
                    }
                }
                while next < min(concurrency, count) { start(next); next += 1 }
                while let latency = try await group.next() {
                    latencies.record(latency)
                    if next < count { start(next); next += 1 }
                }
                return latencies
            }
            return BenchHTTPLoad.Run(latencies: latencies, wall: began.duration(to: .now))
        }
    }

    /// A JSON POST as `host` (its proxy-reported address), answered 200.
    private static func post(_ client: HTTP1Client, _ url: String, _ body: JSONValue, _ host: Host,
                             bearer: String? = nil) async throws -> HTTPClientReply {
        var headers = [("Content-Type", "application/json"), ("X-Forwarded-For", host.address)]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let reply = try await client.post(url, headers: headers, body: body.serializedBytes())
        guard reply.status == 200 else {
            throw ToolFailure("\(url) answered \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return reply
    }

    private static func figures(_ name: String, _ unit: String, _ run: BenchHTTPLoad.Run, count: Int, concurrency: Int,
                                report: (BenchFigure) -> Void) {
        let percentiles = run.latencies.milliseconds(percentiles: [0.5, 0.99])
        report(BenchFigure(name: "\(name).per_second", value: Double(count) / run.wallSeconds, unit: unit,
                           detail: "\(BenchFigure.grouped(count)) in \(BenchFigure.twoDecimals(run.wallSeconds)) s wall, "
                               + "\(concurrency) connections"))
        report(BenchFigure(name: "\(name).latency_p50", value: percentiles[0], unit: "ms"))
        report(BenchFigure(name: "\(name).latency_p99", value: percentiles[1], unit: "ms"))
    }
}
