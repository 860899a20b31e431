import Foundation
import Testing
@testable import PushgateCore
@testable import PushgateRelay
import PushgateTesting
import PushgateTestSupport

/// protocol/gateway.md §12 lines 33–35 and the §10.1 settings: the per-IP handshake bucket, the
/// body cap, what the logs never hold, and start-up refusals.
@Suite(.hangLimit(.minutes(1))) struct GatewayLimitTests {
    // §12 line 33, socket peer as the key.
    @Test func handshakeBucketHoldsThirtyPerPeer() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        for index in 0..<30 {
            // Without trusted hops a caller-written X-Forwarded-For never selects the bucket.
            #expect(try await harness.challenge(host, headers: ["X-Forwarded-For: 10.0.0.\(index)"]).status == 200)
        }
        let refused = try await harness.challenge(host)
        #expect(refused.status == 429 && refused.text == #"{"error":"rate_limited"}"#)
        let session = try await harness.answer(host, challengeId: "x", proof: SecureRandom.bytes(32))
        #expect(session.status == 429 && session.error == "rate_limited", "the session route shares the bucket")
        #expect(harness.gateway.counter("ip_rate_limited") == 2)
        await harness.stop()
    }

    // §12 line 33, one trusted hop.
    @Test func trustedHopSelectsTheBucketAndRefillsOverTime() async throws {
        let harness = try await GatewayHarness(settings: ["TRUSTED_PROXY_HOPS": "1"])
        let host = try harness.newHost()
        func challenge(_ forwardedFor: String?) async throws -> Int {
            try await harness.challenge(host, headers: forwardedFor.map { ["X-Forwarded-For: \($0)"] } ?? []).status
        }
        for index in 0..<30 {
            // The caller-written left part changes every time; the proxy-appended right one does not.
            #expect(try await challenge("198.51.100.\(index), 203.0.113.7") == 200)
        }
        #expect(try await challenge("192.0.2.1,203.0.113.7") == 429)
        let session = try await harness.call("POST", "/v1/host/session", json: host.sessionRequest(challengeId: "x", proof: SecureRandom.bytes(32)),
                                             headers: ["X-Forwarded-For: 203.0.113.7"])
        #expect(session.status == 429)
        #expect(try await challenge("203.0.113.8") == 200, "another IP has its own bucket")
        #expect(try await challenge(nil) == 200, "no header: the shared bucket `unknown`")
        await harness.advance(byMs: 1_999)
        #expect(try await challenge("203.0.113.7") == 429)
        await harness.advance(byMs: 1)
        #expect(try await challenge("203.0.113.7") == 200, "a token back after 2 s")
        #expect(try await challenge("203.0.113.7") == 429)
        await harness.advance(byMs: 60_000)
        for _ in 0..<30 { #expect(try await challenge("203.0.113.7") == 200, "full after 60 s") }
        #expect(try await challenge("203.0.113.7") == 429)
        await harness.stop()
    }

    // §12 line 34
    @Test func bodiesOverSixteenKiBAre413RequestTooLarge() async throws {
        let harness = try await GatewayHarness()
        let session = try await harness.handshake(try harness.newHost())
        let oversized = [UInt8](repeating: 0x20, count: 16_385)
        for (path, headers) in [("/v1/host/challenge", [String]()), ("/v1/send", ["Authorization: Bearer \(session)"])] {
            let declared = try await harness.call("POST", path, body: oversized, headers: headers)
            #expect(declared.status == 413 && declared.text == #"{"error":"request_too_large"}"#, "\(path) by Content-Length")
            var request = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n".utf8)
            for line in headers { request += Array("\(line)\r\n".utf8) }
            request += Array("\r\n".utf8)
            for chunk in stride(from: 0, to: oversized.count, by: 4_096).map({ Array(oversized[$0..<min($0 + 4_096, oversized.count)]) }) {
                request += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
            }
            request += Array("0\r\n\r\n".utf8)
            let port = harness.port
            let upload = request
            let chunked = try await onOwnThread { try ChunkedUpload.exchange(port: port, request: upload) }
            #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(path) chunked")
            #expect(chunked.hasSuffix(#"{"error":"request_too_large"}"#), "\(path) chunked")
        }
        // 16 384 bytes is still read (and then judged as JSON).
        let atCap = try await harness.call("POST", "/v1/host/challenge", body: [UInt8](repeating: 0x20, count: 16_384))
        #expect(atCap.status == 400 && atCap.error == "invalid_request")
        // Authenticated routes check the bearer's form before the body size.
        let anonymous = try await harness.call("POST", "/v1/send", body: oversized)
        #expect(anonymous.status == 401 && anonymous.error == "invalid_token")
        await harness.stop()
    }

    // §12 line 35: a run through every route and outcome, logged at debug level, leaks nothing.
    @Test func logsHoldNoSecrets() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"], fcm: true)
        let host = try harness.newHost()
        let challenge = try await harness.issuedChallenge(host)
        let proof = try host.answer(challenge, nowMs: harness.clock.nowMilliseconds)
        let sessionReply = try await harness.answer(host, challengeId: challenge.challengeId, proof: proof)
        let session = try host.acceptSession(try #require(sessionReply.json)).sessionToken
        let tokens = (0..<4).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        let androidTokens = ["fcm-secret-" + Hex.encode(SecureRandom.bytes(24)), "fcm-secret-" + Hex.encode(SecureRandom.bytes(24))]
        var ids: [String] = []
        for (index, token) in tokens.enumerated() {
            ids.append(try await harness.register(GatewayHarness.device("device-\(index)", token: token), session: session))
        }
        for (index, token) in androidTokens.enumerated() {
            ids.append(try await harness.register(GatewayHarness.device("android-\(index)", token: token, environment: nil, platform: "android"),
                                                  session: session))
        }
        harness.fake.script(token: tokens[1], .init(status: 410, reason: .unregistered))
        harness.fake.script(token: tokens[2], .init(status: 500, reason: .internalServerError))
        harness.fake.script(token: tokens[3], .init(status: 400, reason: .badCollapseId))
        harness.fcm?.script(token: androidTokens[1], FakeFCMScript(.unregistered))
        let title = "Secret title \(UUID().uuidString)"
        let body = "Secret body \(UUID().uuidString)"
        _ = try await harness.send(GatewayHarness.send(ids, notificationId: "secret-note-id", title: title, body: body,
                                                       worktreeId: "secret-worktree"), session: session)
        await harness.advance(byMs: 0)
        _ = try await harness.send(GatewayHarness.send(ids, title: title, body: body), session: session)
        _ = try await harness.call("GET", "/v1/devices", headers: ["Authorization: Bearer \(HostProof.newSessionToken())"])
        _ = try await harness.answer(host, challengeId: challenge.challengeId, proof: proof)
        await harness.advance(byMs: 60_000)
        #expect(harness.logs.lines.contains { $0.contains("gateway counters") })
        #expect(harness.gateway.counter("delivery_dead") == 2)
        #expect(harness.gateway.counter("delivery_error") == 2, "the refused one, once per send")
        #expect(harness.gateway.deliveryAttempts("unavailable") >= 2, "the 500, tried again")
        let secrets = tokens + androidTokens + [title, body, session, HostProof.storedHash(ofSessionToken: session), Base64.encode(proof),
                                                host.hostFingerprint, Base64.encode(host.keyPair.publicKey), challenge.ciphertextB64,
                                                "secret-note-id", "secret-worktree"]
        #expect(await harness.stopAndFindLeaks(secrets).isEmpty)
    }

    // §10.1
    @Test func settingsAreValidatedAtStartUp() throws {
        let base = ["PUSHGATE_RELAY_DRY_RUN": "true"]
        func configuration(_ gateway: [String: String]) throws(ConfigurationError) -> GatewayConfiguration? {
            try RelayConfiguration(arguments: [], environment: base.merging(gateway) { $1 }).gateway
        }
        #expect(try configuration([:]) == nil, "off without a public URL")
        #expect(try configuration(["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_ENABLED": "false"]) == nil)
        let on = try #require(try configuration(["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org"]))
        #expect(on.coalesceMs == 3_000 && on.trustedProxyHops == 0 && on.androidChannelId == "orca-desktop")
        #expect(on.apnsTopic == "dev.pushgate.dry-run" && on.fcmProjectId == nil)
        #expect(on.newHostsPerIPPerHour == 20 && on.hostTTLMs == 30 * 86_400_000 && on.maxHosts == 100_000)
        let growth = try #require(try configuration(["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org",
                                                     "PUSHGATE_GATEWAY_NEW_HOSTS_PER_IP_PER_HOUR": "3",
                                                     "PUSHGATE_GATEWAY_HOST_TTL_DAYS": "2", "PUSHGATE_GATEWAY_MAX_HOSTS": "50"]))
        #expect(growth.newHostsPerIPPerHour == 3 && growth.hostTTLMs == 2 * 86_400_000 && growth.maxHosts == 50)
        let refusals: [([String: String], String)] = [
            (["PUSHGATE_GATEWAY_ENABLED": "true"], "PUSHGATE_GATEWAY_PUBLIC_URL"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org/"], "PUSHGATE_GATEWAY_PUBLIC_URL"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "http://push.example.org"], "PUSHGATE_GATEWAY_PUBLIC_URL"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_COALESCE_MS": "60001"], "PUSHGATE_GATEWAY_COALESCE_MS"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_TRUSTED_PROXY_HOPS": "9"], "PUSHGATE_GATEWAY_TRUSTED_PROXY_HOPS"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_FCM_PROJECT_ID": "My Project"], "PUSHGATE_GATEWAY_FCM_PROJECT_ID"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_COALESCE": "1"], "PUSHGATE_GATEWAY_COALESCE"),
            (["PUSHGATE_GATEWAY_ENABLED": "maybe"], "PUSHGATE_GATEWAY_ENABLED"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_NEW_HOSTS_PER_IP_PER_HOUR": "0"],
             "PUSHGATE_GATEWAY_NEW_HOSTS_PER_IP_PER_HOUR"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_HOST_TTL_DAYS": "0"], "PUSHGATE_GATEWAY_HOST_TTL_DAYS"),
            (["PUSHGATE_GATEWAY_PUBLIC_URL": "https://push.example.org", "PUSHGATE_GATEWAY_MAX_HOSTS": "none"], "PUSHGATE_GATEWAY_MAX_HOSTS"),
        ]
        for (settings, name) in refusals {
            #expect(throws: ConfigurationError.self, "\(settings)") { try configuration(settings) }
            do { _ = try configuration(settings) } catch { #expect(error.setting == name) }
        }
    }

    @Test func healthReadyAndMetrics() async throws {
        let harness = try await GatewayHarness()
        let health = try await harness.call("GET", "/health")
        #expect(health.status == 200 && health.text == #"{"ok":true,"pushProtocol":1}"#)
        #expect(health.headers["cache-control"] == "no-store")
        #expect(try await harness.call("GET", "/ready").text == #"{"ok":true}"#)
        let port = harness.port
        let head = try await onOwnThread {
            try ChunkedUpload.exchange(port: port, request: RawHTTPConnection.request("HEAD", "/health", headers: ["Connection: close"]))
        }
        #expect(head.hasPrefix("HTTP/1.1 200") && !head.contains("pushProtocol"), "HEAD answers without a body")
        _ = try await harness.challenge(try harness.newHost())
        #expect(try await harness.call("GET", "/metrics").status == 404, "metrics are served on METRICS_LISTEN only")
        let metrics = try await harness.metrics()
        #expect(metrics.contains("pushgate_relay_requests_total{route=\"gateway-challenge\",status=\"200\",outcome=\"ok\"} 1"))
        #expect(metrics.contains("pushgate_gateway_events_total{event=\"challenge_issued\"} 1"))
        #expect(metrics.contains("pushgate_relay_in_flight"), "the relay's own metrics are still there")
        #expect(try await harness.call("GET", "/v1/host/challenge").status == 405, "wrong method")
        harness.relay.service.stopAccepting()
        let notReady = try await harness.call("GET", "/ready")
        #expect(notReady.status == 503 && notReady.text == #"{"error":"dependency_unavailable"}"#)
        await harness.stop()
    }
}
