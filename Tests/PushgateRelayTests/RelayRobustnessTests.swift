import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateTesting
import Synchronization
import PushgateTestSupport

/// The real relay over loopback under hostile and heavy traffic: malformed HTTP, stalled
/// clients, a thousand held connections and a 10 000-request mixed burst leave it serving,
/// with memory bounded and every valid request answered correctly.
@Suite(.serialized, .hangLimit(.minutes(1))) struct RelayRobustnessTests {
    /// Limits raised so that only the behaviour under test refuses anything.
    static let generousLimits = [
        "REGISTER_LIMIT_PER_MINUTE": "1000000", "SEND_LIMIT_PER_MINUTE": "1000000",
        "SERVER_SEND_LIMIT_PER_MINUTE": "1000000", "MAX_REPLAY_KEYS": "1000000", "MAX_IN_FLIGHT": "1000",
        "NEW_TOKENS_PER_IP_PER_HOUR": "1000000", "MAX_CONNECTIONS_PER_IP": "4096",
    ]

    @Test func malformedHTTPIsRefusedAndTheRelayKeepsServing() async throws {
        let harness = try await RelayHarness(settings: Self.generousLimits)
        let port = harness.relay.port
        let get = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        let post = "POST /v1/push/register-token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        let cases: [(name: String, request: [UInt8], outcome: ExpectedAnswer)] = [
            ("garbage request line", Array("HELLO\r\n\r\n".utf8), .refused),
            ("binary request line", [0xFF, 0xFE] + Array("\r\n\r\n".utf8), .refused),
            ("request line without version", Array("GET /healthz\r\nConnection: close\r\n\r\n".utf8), .status(400)),
            ("header line without colon", Array((get + "NoColonHere\r\n\r\n").utf8), .status(400)),
            ("two equal Content-Length", Array((post + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}").utf8), .status(400)),
            ("two different Content-Length", Array((post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}").utf8), .status(400)),
            ("Content-Length list", Array((post + "Content-Length: 2, 2\r\n\r\n{}").utf8), .status(400)),
            ("negative Content-Length", Array((post + "Content-Length: -1\r\n\r\n{}").utf8), .status(400)),
            ("non-numeric Content-Length", Array((post + "Content-Length: 1x\r\n\r\n{}").utf8), .status(400)),
            ("Content-Length beyond 64 bits", Array((post + "Content-Length: 99999999999999999999999\r\n\r\n{}").utf8), .status(413)),
            ("Content-Length with Transfer-Encoding",
             Array((post + "Content-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n").utf8), .status(400)),
            ("Transfer-Encoding gzip", Array((post + "Transfer-Encoding: gzip\r\n\r\n{}").utf8), .status(400)),
            ("Transfer-Encoding gzip, chunked",
             Array((post + "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n").utf8), .status(400)),
            ("Transfer-Encoding twice",
             Array((post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n").utf8), .status(400)),
            ("chunk size not hex", Array((post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n").utf8), .status(400)),
            ("64 KiB header value", Array((get + "X-Big: " + String(repeating: "a", count: 64 * 1024) + "\r\n\r\n").utf8), .status(431)),
            ("64 KiB URL", Array(("GET /healthz?" + String(repeating: "a", count: 64 * 1024) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").utf8), .status(414)),
            ("6 000 header fields", Array((get + (0..<6_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n").utf8), .status(431)),
            ("HTTP/2 prior-knowledge preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), .status(505)),
            ("unknown method", Array("FOO /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8), .status(405)),
        ]
        let invalidBodies: [(name: String, body: [UInt8])] = [
            ("empty", []), ("open brace", Array("{".utf8)), ("array", Array("[]".utf8)), ("null", Array("null".utf8)),
            ("string", Array(#""text""#.utf8)), ("cut off", Array(#"{"token":"#.utf8)), ("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22]),
            ("duplicate key", Array(#"{"ts":1,"ts":1}"#.utf8)), ("10 000 nested arrays", Array(String(repeating: "[", count: 10_000).utf8)),
            ("huge number", Array(#"{"ts":1e999}"#.utf8)), ("trailing text", Array("{} x".utf8)), ("NUL byte", [0x00]),
            ("16 KiB of spaces", [UInt8](repeating: 0x20, count: 16 * 1024)),
        ]
        var json: [(name: String, request: [UInt8], outcome: ExpectedAnswer)] = []
        for path in ["/v1/push/register-token", "/v1/push/send", "/v1/push/live-activity"] {
            json += invalidBodies.map { body in
                ("\(body.name) to \(path)", RawHTTPConnection.request("POST", path, body: body.body, headers: ["Connection: close"]),
                 .error(400, "invalid_request"))
            }
        }
        let all = cases + json
        let outcomes = try await onOwnThread { try all.map { try Observation.observe(port: port, request: $0.request) } }
        for ((name, _, expected), observed) in zip(all, outcomes) {
            #expect(expected.matches(observed), "\(name): got \(observed)")
        }
        // Bodies cut short by a client that then disconnects: nothing to answer, nothing may break.
        try await onOwnThread {
            for request in [post + "Content-Length: 100\r\n\r\n{\"tok", post + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"tok"] {
                try RawHTTPConnection(port: port).sendUnlessClosed(Array(request.utf8))
            }
        }
        // RFC 9112 §5.1: white space before the colon is refused, never read as another field.
        let observed = try await onOwnThread {
            try Observation.observe(port: port, request: Array((get + "Transfer-Encoding : chunked\r\n\r\n").utf8))
        }
        #expect(ExpectedAnswer.status(400).matches(observed), "whitespace before the colon: got \(observed)")
        try await Self.expectServing(harness, "after malformed requests")
        #expect(harness.fake.requests.count == 1, "only the final valid send reached the provider")
        await harness.stop()
    }

    @Test func stalledClientsAreCutAtTheRequestDeadlineWhileOthersAreServed() async throws {
        // The relay keeps HTTPServerConfiguration's defaults: a request must arrive within 10 s of
        // the connection being ready for it (swept every second); idle connections close after 10 s.
        let harness = try await RelayHarness(settings: Self.generousLimits)
        let port = harness.relay.port
        let start = ContinuousClock.now
        async let headerTrickle = onOwnThread {
            try Stall.trickle(port: port, head: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", since: start)
        }
        async let bodyTrickle = onOwnThread {
            try Stall.trickle(port: port, head: "POST /v1/push/register-token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4096\r\n\r\n{\"token\":\"", since: start)
        }
        async let halfClosedBody = onOwnThread {
            try Stall.wait(port: port, sending: Array("POST /v1/push/send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"tok".utf8),
                           halfClose: true, since: start)
        }
        async let nulRequestLine = onOwnThread {
            try Stall.wait(port: port, sending: [0x00, 0x01, 0x02, 0xFF] + Array("\r\n\r\n".utf8), halfClose: false, since: start)
        }
        try await Self.expectServing(harness, "while stalled clients hold connections")
        let servedAfter = ContinuousClock.now - start
        let trickles = [("header trickle", try await headerTrickle), ("body trickle", try await bodyTrickle)]
        let stalls = [("half-closed body", try await halfClosedBody), ("NUL request line", try await nulRequestLine)]
        #expect(servedAfter < .seconds(5), "a normal client is served while the stalled ones wait (\(servedAfter))")
        for (name, stall) in trickles {
            // Cut by the request deadline, not sooner: a byte every 200 ms keeps it from being idle.
            #expect(stall.closedAfter.map { $0 >= .seconds(9) && $0 <= .seconds(13) } == true, "\(name): \(stall)")
            #expect(stall.received.isEmpty, "\(name) was answered: \(stall)")
        }
        for (name, stall) in stalls {
            #expect(stall.closedAfter.map { $0 <= .seconds(13) } == true, "\(name): \(stall)")
            #expect(stall.received.isEmpty, "\(name) was answered: \(stall)")
        }
        try await Self.expectServing(harness, "after the stalled clients were cut")
        await harness.stop()
    }

    @Test func aThousandKeepAliveConnectionsAreServedAtOnce() async throws {
        try Self.raiseOpenFileLimit(atLeast: 4_096)  // a client and a server descriptor per connection
        let harness = try await RelayHarness(settings: Self.generousLimits)
        let port = harness.relay.port
        let clients = try await onOwnThread { try (0..<1_000).map { _ in try RawHTTPConnection(port: port) } }
        let firstRound = try await onOwnThread { Self.healthzOnEach(clients) }
        Self.expectAllAnswered(firstRound, "1 000 new connections")
        try await Self.expectServing(harness, "with 1 000 connections held open")
        if firstRound.isEmpty {
            let secondRound = try await onOwnThread { Self.healthzOnEach(clients) }
            Self.expectAllAnswered(secondRound, "the same connections, kept alive")
        }
        withExtendedLifetime(clients) {}
        await harness.stop()
    }

    @Test func tenThousandMixedRequestsAreAnsweredCorrectlyWithBoundedMemory() async throws {
        let harness = try await RelayHarness(settings: Self.generousLimits)
        let port = harness.relay.port
        let mix = Burst.Mix(hosts: (0..<6).map { _ in P256PrivateKey() }, nowMs: harness.clock.nowMilliseconds)
        for (host, home) in zip(mix.hosts, mix.homes) {
            #expect(try await harness.host(host).registerToken(home).status == 200)
        }
        var generator = SplitMix64(seed: 0x5EED_2026)
        let jobs = try mix.jobs(requests: 10_000, using: &generator)
        #expect(jobs.reduce(0) { $0 + $1.count } == 10_000)
        let before = Self.residentBytes()
        let failures = try await Burst.run(jobs, port: port, concurrency: 64)
        let growth = Self.residentBytes() - before
        #expect(failures.count == 0, "\(failures.count) wrong answers, first: \(failures.prefix(5))")
        // Under the address sanitizer freed blocks stay in its quarantine: resident memory says nothing there.
        #expect(SanitizedRun.keepsFreedMemory || growth < 64 << 20, "resident memory grew \(growth >> 20) MiB over the burst")

        // Every valid send reached the provider exactly as often as it was accepted, nothing else did.
        let expected = mix.expectedDeliveries(jobs)
        let delivered = Dictionary(grouping: harness.fake.requests.compactMap(\.deviceToken)) { $0 }.mapValues(\.count)
        let wrong = expected.filter { delivered[$0.key, default: 0] != $0.value }
        #expect(wrong.isEmpty, "\(wrong.count) tokens delivered a wrong number of times")
        #expect(harness.fake.requests.count == expected.values.reduce(0, +), "the provider got nothing else")
        let bound = try await harness.metrics().split(separator: "\n")
            .first { $0.hasPrefix("pushgate_relay_bound_tokens ") }.map { String($0.split(separator: " ")[1]) }
        #expect(bound == "\(mix.homes.count + Burst.Mix.registeredTokens(jobs).count)", "every register bound once")
        try await Self.expectServing(harness, "after the burst")
        await harness.stop()
    }

    // MARK: - Helpers

    /// A fresh host registers a token and sends to it: 200 `{"ok":true}`, then one accepted row.
    static func expectServing(_ harness: RelayHarness, _ comment: Comment) async throws {
        #expect(try await harness.request("GET", "/healthz").status == 200, comment)
        let host = harness.host()
        let token = TestToken.make()
        let registered = try await host.registerToken(token)
        #expect(registered.status == 200 && registered.body == Array(#"{"ok":true}"#.utf8), comment)
        let sent = try await host.send(tokens: [token], title: "still serving")
        #expect(sent.status == 200 && sent.results == [.init(token: token, ok: true)], comment)
    }

    /// Every one of the 1 000 requests answered, whole and right.
    static func expectAllAnswered(_ failures: [String], _ round: String) {
        #expect(failures.isEmpty, "\(round): \(failures.count) of 1 000 failed: \(failures.prefix(3))")
    }

    /// Sends `GET /healthz` on every connection, then reads every answer; the failures.
    static func healthzOnEach(_ clients: [RawHTTPConnection]) -> [String] {
        let request = RawHTTPConnection.request("GET", "/healthz")
        var failures: [String] = []
        for (index, client) in clients.enumerated() where !client.sendUnlessClosed(request) {
            failures.append("#\(index): write refused")
        }
        for (index, client) in clients.enumerated() {
            do {
                let response = try client.readResponse()
                if response.status != 200 || response.bodyText != #"{"status":"ok","extensions":["interruptionLevel"]}"# || response.closesConnection {
                    failures.append("#\(index): \(response.status) \(response.bodyText)")
                }
            } catch {
                failures.append("#\(index): \(error)")
            }
        }
        return failures
    }

    /// Raises this process's soft open-file limit to the hard one; throws if that is below `minimum`.
    static func raiseOpenFileLimit(atLeast minimum: Int) throws {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { throw POSIXError(.EPERM) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(resource, &limit) == 0, limit.rlim_cur >= rlim_t(minimum) else { throw POSIXError(.EMFILE) }
    }

    /// `VmRSS` of this process (the relay runs in it), in bytes.
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}

extension RelayRobustnessTests {
    /// What one raw exchange on a new connection showed, once the relay closed it.
    struct Observation: Sendable, CustomStringConvertible {
        /// The first response, if one parsed.
        var response: RawHTTPConnection.Response?
        var byteCount: Int

        var description: String {
            response.map { "\($0.status) \($0.bodyText.prefix(80).debugDescription)" } ?? "no response (\(byteCount) bytes)"
        }

        /// Sends `request` on a new connection and reads until the relay closes it.
        static func observe(port: UInt16, request: [UInt8]) throws -> Observation {
            let client = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 5)
            client.sendUnlessClosed(request)
            let bytes = client.readToEnd()
            return Observation(response: (try? RawHTTPConnection.Response.parse(bytes[...], complete: true))?.response, byteCount: bytes.count)
        }
    }

    /// The answer a raw exchange must get.
    enum ExpectedAnswer: Sendable {
        /// Exactly this status.
        case status(Int)
        /// This status with the body `{"error":code}`.
        case error(Int, String)
        /// A 4xx status, or the connection closed without a byte.
        case refused

        func matches(_ observation: Observation) -> Bool {
            let response = observation.response
            switch self {
            case .status(let status): return response?.status == status
            case .error(let status, let code): return response?.status == status && response?.bodyText == #"{"error":"\#(code)"}"#
            case .refused: return response.map { (400..<500).contains($0.status) } ?? (observation.byteCount == 0)
            }
        }
    }

    /// Clients that never finish a request, and when the relay gave up on them.
    enum Stall {
        struct Outcome: Sendable, CustomStringConvertible {
            /// Time from the test's start until the relay closed the connection; `nil` if it never did.
            var closedAfter: Duration?
            var received: [UInt8]
            var description: String { "closed after \(closedAfter.map { "\($0)" } ?? "never"), \(received.count) bytes received" }
        }

        /// Sends `head`, then one more byte every 200 ms until the relay closes the connection (15 s at most).
        static func trickle(port: UInt16, head: String, since start: ContinuousClock.Instant) throws -> Outcome {
            let client = try RawHTTPConnection(port: port)
            client.sendUnlessClosed(Array(head.utf8))
            var received: [UInt8] = []
            while ContinuousClock.now - start < .seconds(15) {
                let (closed, bytes) = client.waitForClose(milliseconds: 200)
                received += bytes
                if closed || !client.sendUnlessClosed([UInt8(ascii: "a")]) { return Outcome(closedAfter: ContinuousClock.now - start, received: received) }
            }
            return Outcome(closedAfter: nil, received: received)
        }

        /// Sends `bytes` (then half-closes if asked) and waits up to 15 s for the relay to close.
        static func wait(port: UInt16, sending bytes: [UInt8], halfClose: Bool, since start: ContinuousClock.Instant) throws -> Outcome {
            let client = try RawHTTPConnection(port: port)
            client.sendUnlessClosed(bytes)
            if halfClose { client.shutdownWrite() }
            let (closed, received) = client.waitForClose(milliseconds: 15_000)
            return Outcome(closedAfter: closed ? ContinuousClock.now - start : nil, received: received)
        }
    }

}

extension RelayRobustnessTests {
    /// The mixed burst: jobs of one or two requests, each with the exact answer it must get,
    /// run over keep-alive raw connections with bounded concurrency.
    enum Burst {
        /// One request and its expected answer.
        struct Exchange: Sendable {
            var label: String
            var request: [UInt8]
            var status: Int
            /// The expected body; compared as JSON when it parses.
            var body: [UInt8]
            /// The relay closes the connection after answering (a body it refused unread).
            var closes = false
            /// Tokens the provider receives once because of this request.
            var deliveries: [String] = []
            /// The token this request newly binds.
            var binds: String?

            /// What is wrong with `response`, or `nil`.
            func problem(with response: RawHTTPConnection.Response) -> String? {
                let expectedJSON = try? JSONValue.parse(body)
                let bodyMatches = expectedJSON.map { (try? JSONValue.parse(response.body)) == $0 } ?? (response.body == body)
                guard response.status == status, bodyMatches else { return "got \(response.status) \(response.bodyText.prefix(120))" }
                guard response.closesConnection == closes else { return "connection close \(response.closesConnection), expected \(closes)" }
                guard response.headers["cache-control"] == "no-store" else { return "no cache-control: no-store" }
                return nil
            }
        }

        typealias Job = [Exchange]

        /// Hosts with one registered "home" token each, and the jobs they send.
        struct Mix {
            let hosts: [P256PrivateKey]
            let homes: [String]
            let nowMs: Int64

            init(hosts: [P256PrivateKey], nowMs: Int64) {
                self.hosts = hosts
                homes = hosts.map { _ in TestToken.make() }
                self.nowMs = nowMs
            }

            /// Jobs totalling exactly `requests` requests: about half valid, half invalid.
            func jobs(requests: Int, using generator: inout SplitMix64) throws -> [Job] {
                var jobs: [Job] = []
                var total = 0
                while total < requests {
                    var job = try self.job(roll: Int.random(in: 0..<100, using: &generator),
                                           host: Int.random(in: 0..<hosts.count, using: &generator), serial: jobs.count)
                    if total + job.count > requests { job = [Self.healthz] }
                    jobs.append(job)
                    total += job.count
                }
                return jobs
            }

            /// Provider requests each token must have received (zero included).
            func expectedDeliveries(_ jobs: [Job]) -> [String: Int] {
                var counts = Dictionary(uniqueKeysWithValues: homes.map { ($0, 0) })
                for exchange in jobs.joined() {
                    if let token = exchange.binds { counts[token, default: 0] += 0 }
                    for token in exchange.deliveries { counts[token, default: 0] += 1 }
                }
                return counts
            }

            /// Tokens bound by the jobs' registers.
            static func registeredTokens(_ jobs: [Job]) -> Set<String> { Set(jobs.joined().compactMap(\.binds)) }

            static let healthz = Exchange(label: "healthz", request: RawHTTPConnection.request("GET", "/healthz"),
                                          status: 200, body: Array(#"{"status":"ok","extensions":["interruptionLevel"]}"#.utf8))

            private func job(roll: Int, host: Int, serial: Int) throws -> Job {
                let signer = RelayRequestSigner(key: hosts[host])
                let home = homes[host], neighbour = homes[(host + 1) % homes.count]
                let ok = Array(#"{"ok":true}"#.utf8)
                func post(_ route: String, _ body: [UInt8]) -> [UInt8] { RawHTTPConnection.request("POST", "/v1/push/" + route, body: body) }
                func error(_ code: String) -> [UInt8] { Array(#"{"error":"\#(code)"}"#.utf8) }
                func results(_ rows: [(String, Bool)]) -> [UInt8] {
                    let array = rows.map { row in
                        var object = JSONObject([("token", .string(row.0)), ("ok", .bool(row.1))])
                        if !row.1 { object["reason"] = "not_bound"; object["retryable"] = true }
                        return JSONValue.object(object)
                    }
                    return JSONValue.object(JSONObject([("results", .array(array))])).serializedBytes()
                }
                func mutated(_ body: [UInt8], _ key: String, _ value: JSONValue) throws -> [UInt8] {
                    var object = try JSONValue.parse(body).objectValue!
                    object[key] = value
                    return JSONValue.object(object).serializedBytes()
                }
                let title = "burst \(serial)"
                switch roll {
                case 0..<14:
                    let token = TestToken.make()
                    return [Exchange(label: "register", request: post("register-token", try signer.registerToken(token, ts: nowMs)),
                                     status: 200, body: ok, binds: token)]
                case 14..<26:
                    let token = TestToken.make()
                    let send = try signer.send(tokens: [token, neighbour, token], title: title, ts: nowMs)
                    return [Exchange(label: "register", request: post("register-token", try signer.registerToken(token, ts: nowMs)),
                                     status: 200, body: ok, binds: token),
                            Exchange(label: "send to it, a neighbour's token and it again", request: post("send", send),
                                     status: 200, body: results([(token, true), (neighbour, false)]), deliveries: [token])]
                case 26..<42:
                    return [Exchange(label: "send home", request: post("send", try signer.send(tokens: [home], title: title, ts: nowMs)),
                                     status: 200, body: results([(home, true)]), deliveries: [home])]
                case 42..<48:
                    let send = post("send", try signer.send(tokens: [home], title: title, ts: nowMs))
                    return [Exchange(label: "send home", request: send, status: 200, body: results([(home, true)]), deliveries: [home]),
                            Exchange(label: "replayed send", request: send, status: 401, body: error("replay"))]
                case 48..<53:
                    let token = TestToken.make()
                    let register = post("register-token", try signer.registerToken(token, ts: nowMs))
                    return [Exchange(label: "register", request: register, status: 200, body: ok, binds: token),
                            Exchange(label: "replayed register", request: register, status: 200, body: ok)]
                case 53..<58:
                    return [Self.healthz]
                case 58..<66:
                    let forged = try mutated(try signer.send(tokens: [home], title: title, ts: nowMs), "title", .string("forged \(serial)"))
                    return [Exchange(label: "send with another title", request: post("send", forged), status: 401, body: error("invalid_signature"))]
                case 66..<71:
                    let forged = try mutated(try signer.registerToken(TestToken.make(), ts: nowMs), "token", .string(TestToken.make()))
                    return [Exchange(label: "register with another token", request: post("register-token", forged),
                                     status: 401, body: error("invalid_signature"))]
                case 71..<75:
                    let stale = try signer.send(tokens: [home], title: title, ts: nowMs + (serial.isMultiple(of: 2) ? 400_000 : -400_000))
                    return [Exchange(label: "send outside the skew", request: post("send", stale), status: 401, body: error("timestamp"))]
                case 75..<85:
                    let broken: [[UInt8]] = [Array("{".utf8), Array("[]".utf8), Array(#"{"tokens":"#.utf8), [0xFF, 0x00], Array(#"{"ts":1,"ts":1}"#.utf8)]
                    return [Exchange(label: "bad JSON", request: post(serial.isMultiple(of: 2) ? "send" : "register-token", broken[serial % broken.count]),
                                     status: 400, body: error("invalid_request"))]
                case 85..<88:
                    let android = try mutated(try signer.registerToken(TestToken.make(), ts: nowMs), "platform", "android")
                    return [Exchange(label: "android register without an Android account", request: post("register-token", android), status: 501,
                                     body: Array(#"{"error":"unsupported_platform","setting":"PUSHGATE_RELAY_ANDROID_FCM_SERVICE_ACCOUNT_PATH"}"#.utf8))]
                case 88..<92:
                    let oversized = try mutated(try signer.send(tokens: [home], title: title, ts: nowMs), "body", .string(String(repeating: "x", count: 65 * 1024)))
                    return [Exchange(label: "65 KiB send", request: post("send", oversized), status: 413, body: error("payload_too_large"), closes: true)]
                default:
                    return serial.isMultiple(of: 2)
                        ? [Exchange(label: "unknown path", request: post("nope", Array("{}".utf8)), status: 404, body: [], closes: true)]
                        : [Exchange(label: "send by GET", request: RawHTTPConnection.request("GET", "/v1/push/send"), status: 405, body: [])]
                }
            }
        }

        /// Hands out job indices to the workers.
        final class Cursor: Sendable {
            private let position = Atomic(0)


            func take() -> Int { position.wrappingAdd(1, ordering: .relaxed).oldValue }
        }

        /// Runs `jobs` on `concurrency` threads, each with its own keep-alive connection (reopened
        /// after a response that closes it); every wrong answer, described.
        static func run(_ jobs: [Job], port: UInt16, concurrency: Int) async throws -> [String] {
            let cursor = Cursor()
            return try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        try await onOwnThread {
                            var failures: [String] = []
                            var connection: RawHTTPConnection?
                            while case let index = cursor.take(), index < jobs.endIndex {
                                for exchange in jobs[index] {
                                    do {
                                        let client = try connection ?? RawHTTPConnection(port: port)
                                        connection = client
                                        try client.send(exchange.request)
                                        let response = try client.readResponse()
                                        if let problem = exchange.problem(with: response) { failures.append("job \(index) \(exchange.label): \(problem)") }
                                        if response.closesConnection { connection = nil }
                                    } catch {
                                        failures.append("job \(index) \(exchange.label): \(error)")
                                        connection = nil
                                    }
                                }
                            }
                            return failures
                        }
                    }
                }
                var failures: [String] = []
                for try await part in group { failures += part }
                return failures
            }
        }
    }
}
