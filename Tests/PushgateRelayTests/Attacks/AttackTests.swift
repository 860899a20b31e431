import Foundation
import PushgateCore
import PushgateTesting
import Testing
import PushgateTestSupport

/// The attacks of docs/security.md, each run against the real `pushgate-relay` binary from many
/// loopback addresses with its caps scaled down, asserting what the legitimate host still gets.
@Suite(.serialized, .hangLimit(.minutes(1))) struct AttackTests {
    /// H1: a flood of validly signed junk from many addresses fills the replay set; only the
    /// address holding the most keys is refused, the host goes on registering and sending.
    @Test func aReplaySetFloodRefusesOnlyTheHeaviestClient() async throws {
        let relay = try await RelayUnderAttack(settings: ["MAX_REPLAY_KEYS": "300"])
        let host = SigningHost(), token = TestToken.make()
        let refusals = try await onOwnThread { () throws -> Int in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
            var heavyRefused = 0
            let junk = SigningHost()
            for round in 0 ..< 10 {
                for address in 0 ..< 40 {
                    let reply = try relay.post("register-token", junk.register(TestToken.make(), at: relay.nowMs), from: attacker(address))
                    #expect(reply.status == 200 || reply.errorCode == "rate_limited")
                }
                for _ in 0 ..< 6 {
                    if try relay.post("register-token", junk.register(TestToken.make(), at: relay.nowMs), from: attacker(999)).status == 429 {
                        heavyRefused += 1
                    }
                }
                let sent = try relay.post("send", host.send([token], at: relay.nowMs))
                #expect(sent.status == 200 && sent.rows.map(\.ok) == [true], "round \(round)")
            }
            return heavyRefused
        }
        #expect(refusals > 0, "the heaviest client ran into the ceiling")
        #expect(relay.delivered(token) == 10)
        #expect(try await onOwnThread { try relay.metrics() }.contains("pushgate_relay_replay_ceiling_refusals_total \(refusals)"))
        try await relay.stop()
    }

    /// A captured send replayed from fifty addresses is refused as a replay every time and takes
    /// nothing from the host's per-serverId budget.
    @Test func replaysNeverSpendTheHostsBudget() async throws {
        let relay = try await RelayUnderAttack(settings: ["SERVER_SEND_LIMIT_PER_MINUTE": "5"])
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
            let captured = try host.send([token], title: "first", at: relay.nowMs)
            #expect(try relay.post("send", captured).status == 200)
            for address in 0 ..< 50 {
                #expect(try relay.post("send", captured, from: attacker(address)).errorCode == "replay")
            }
            for n in 0 ..< 4 {
                #expect(try relay.post("send", host.send([token], title: "more \(n)", at: relay.nowMs)).status == 200)
            }
        }
        #expect(relay.delivered(token) == 5)
        try await relay.stop()
    }

    /// Replays stay refused after the relay is killed and started again on its files.
    @Test func replaysStayRefusedAcrossAKillNine() async throws {
        let first = try await RelayUnderAttack()
        let host = SigningHost(), token = TestToken.make()
        let captured = try await onOwnThread { () throws -> [UInt8] in
            #expect(try first.post("register-token", host.register(token, at: first.nowMs)).status == 200)
            let send = try host.send([token], at: first.nowMs)
            #expect(try first.post("send", send).status == 200)
            return send
        }
        try await first.kill()
        let journal = first.directory.appendingPathComponent("relay.sqlite-replay").path
        #expect(try FileManager.default.attributesOfItem(atPath: journal)[.posixPermissions] as? Int == 0o600)
        let second = try await RelayUnderAttack(directory: first.directory)
        try await onOwnThread { () throws in
            #expect(try second.post("send", captured, from: attacker(1)).errorCode == "replay")
            #expect(try second.post("send", host.send([token], at: second.nowMs)).rows.map(\.ok) == [true])
        }
        try await second.stop()
        first.production.stop()
        first.sandbox.stop()
    }

    /// M3: a captured register, turned into a send whose title is the register's platform,
    /// would verify; such sends are refused and nothing reaches the phone.
    @Test func aRegisterSignatureCannotBeSentAsAPush() async throws {
        let relay = try await RelayUnderAttack()
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in
            let register = try JSONValue.parse(host.register(token, at: relay.nowMs))
            var forged = JSONObject()
            forged["tokens"] = [.string(token)]
            forged["title"] = "ios"
            forged["body"] = "attacker text"
            for field in ["publicKeyJwk", "ts", "sig"] { forged[field] = register[field] }
            #expect(try relay.post("register-token", JSONValue.object(register.objectValue!).serializedBytes()).status == 200)
            let reply = try relay.post("send", JSONValue.object(forged).serializedBytes(), from: attacker(7))
            #expect(reply.status == 400 && reply.errorCode == "invalid_request")
            forged["title"] = "x.ios.unregister"
            #expect(try relay.post("send", JSONValue.object(forged).serializedBytes(), from: attacker(8)).status == 400)
        }
        #expect(relay.delivered(token) == 0)
        try await relay.stop()
    }

    /// M3 with a dotted token: a send of token `R.android` titled `unregister` signs the bytes of
    /// an unregister of `R` (an FCM token may contain `.`): such sends are refused like the
    /// title-only ones, and nothing is delivered.
    @Test func aSendWhoseSuffixBeginsInADottedTokenIsRefused() async throws {
        let relay = try await RelayUnderAttack()
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
            for (tail, title) in [(".android", "unregister"), (".ios", "liveactivity"), (".ios", "unregister"), ("", "x.ios")] {
                let reply = try relay.post("send", host.send([token + tail], title: title, at: relay.nowMs))
                #expect(reply.status == 400 && reply.errorCode == "invalid_request", "\(tail) + \(title)")
            }
        }
        #expect(relay.delivered(token) == 0)
        try await relay.stop()
    }

    /// H2: one key binding tokens without end, one address adding tokens without end, and the
    /// whole table filling: each is stopped, and the host's existing token keeps working.
    @Test func theTokenTableCannotBeFilledByOneKeyOneAddressOrEveryone() async throws {
        let relay = try await RelayUnderAttack(settings: ["MAX_TOKENS_PER_HOST": "20", "NEW_TOKENS_PER_IP_PER_HOUR": "10",
                                                          "MAX_TOKENS": "60", "REGISTER_LIMIT_PER_MINUTE": "1000"])
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
            let greedy = SigningHost()
            let perKey = try (0 ..< 25).map { n in try relay.post("register-token", greedy.register(TestToken.make(), at: relay.nowMs),
                                                                   from: attacker(n)) }
            #expect(perKey.prefix(20).allSatisfy { $0.status == 200 })
            #expect(perKey.suffix(5).allSatisfy { $0.errorCode == "host_token_limit" })
            let perAddress = try (0 ..< 12).map { _ in
                try relay.post("register-token", SigningHost().register(TestToken.make(), at: relay.nowMs), from: attacker(100))
            }
            #expect(perAddress.prefix(10).allSatisfy { $0.status == 200 })
            #expect(perAddress.suffix(2).allSatisfy { $0.errorCode == "rate_limited" })
            // 31 tokens are held; the table takes 60.
            var full = 0
            for n in 0 ..< 40 where try relay.post("register-token", SigningHost().register(TestToken.make(), at: relay.nowMs),
                                                   from: attacker(200 + n)).errorCode == "token_limit" {
                full += 1
            }
            #expect(full == 11)
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs + 1)).status == 200, "a known token re-registers")
            #expect(try relay.post("send", host.send([token], at: relay.nowMs)).rows.map(\.ok) == [true])
            #expect(try relay.metrics().contains(#"route="register",status="429",outcome="token_limit"} 11"#))
        }
        try await relay.stop()
    }

    /// M4: sixteen strangers who know the phone's token register it, and one sends to it with
    /// the wrong (unsigned) `env`: the host that refreshed within a day keeps delivering.
    @Test func strangersWhoKnowATokenCannotCutItsHostOff() async throws {
        let relay = try await RelayUnderAttack(settings: ["REGISTER_LIMIT_PER_MINUTE": "1000"])
        let host = SigningHost(), token = TestToken.make()
        // The token is a production one: the sandbox does not know it, as Apple's would not.
        relay.sandbox.script(token: token, ScriptedResponse(status: 400, reason: .badDeviceToken))
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
            let strangers = (0 ..< 16).map { _ in SigningHost() }
            let answers = try strangers.enumerated().map { n, stranger in
                try relay.post("register-token", stranger.register(token, at: relay.nowMs), from: attacker(n))
            }
            #expect(answers.prefix(4).allSatisfy { $0.status == 200 }, "four hosts a day may join")
            #expect(answers.dropFirst(4).allSatisfy { $0.errorCode == "binding_limit" })
            #expect(try relay.post("send", host.send([token], at: relay.nowMs)).rows.map(\.ok) == [true])
            // A stranger's send to the sandbox: APNs says BadDeviceToken, which costs only the stranger.
            let wrongEnvironment = try relay.post("send", strangers[0].send([token], environment: "sandbox", at: relay.nowMs),
                                                  from: attacker(0))
            #expect(wrongEnvironment.rows.map(\.reason) == ["dead"])
            #expect(try relay.post("send", host.send([token], title: "still here", at: relay.nowMs)).rows.map(\.ok) == [true])
            #expect(try relay.post("send", strangers[1].send([token], at: relay.nowMs), from: attacker(1)).rows.map(\.ok) == [true])
        }
        #expect(relay.delivered(token) == 3)
        try await relay.stop()
    }

    /// M4 at the sixteen-host limit: with room for new hosts each day, a full set of protected
    /// bindings refuses the newcomer instead of evicting the user's host.
    @Test func aFullSetOfProtectedBindingsRefusesTheNewcomer() async throws {
        let relay = try await RelayUnderAttack(settings: ["REGISTER_LIMIT_PER_MINUTE": "1000", "NEW_BINDINGS_PER_TOKEN_PER_DAY": "64"])
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs)).status == 200)
            for n in 0 ..< 15 {
                #expect(try relay.post("register-token", SigningHost().register(token, at: relay.nowMs), from: attacker(n)).status == 200)
            }
            let newcomer = try relay.post("register-token", SigningHost().register(token, at: relay.nowMs), from: attacker(15))
            #expect(newcomer.status == 429 && newcomer.errorCode == "binding_limit")
            #expect(try relay.post("send", host.send([token], at: relay.nowMs)).rows.map(\.ok) == [true])
        }
        try await relay.stop()
    }

    /// A binding not refreshed for BINDING_TTL_DAYS no longer delivers (`not_bound`) until the
    /// host registers again; the operator's `bindings` command shows and clears a token.
    @Test func staleBindingsExpireAndTheOperatorCanInspectAndClearAToken() async throws {
        let first = try await RelayUnderAttack(settings: ["BINDING_TTL_DAYS": "1"])
        let host = SigningHost(), token = TestToken.make()
        try await onOwnThread { () throws in #expect(try first.post("register-token", host.register(token, at: first.nowMs)).status == 200) }
        try await first.stop(keepFiles: true)
        let later = try await RelayUnderAttack(settings: ["BINDING_TTL_DAYS": "1", "TEST_CLOCK_OFFSET_MS": "\(25 * 3_600_000)"],
                                               directory: first.directory)
        try await onOwnThread { () throws in
            #expect(try later.post("send", host.send([token], at: later.nowMs)).rows.map(\.reason) == ["not_bound"])
            #expect(try later.post("register-token", host.register(token, at: later.nowMs)).status == 200)
            #expect(try later.post("send", host.send([token], title: "again", at: later.nowMs)).rows.map(\.ok) == [true])
        }
        try await later.stop(keepFiles: true)
        let database = first.directory.appendingPathComponent("relay.sqlite").path
        let shown = try RelayProcess(arguments: ["bindings", "--token", token, "--database-path", database], environment: [:])
        let listing = try await onOwnThread { shown.standardOutput() }
        #expect(listing.hasPrefix("alert \(host.key.publicKey.serverId) registered "))
        #expect(try await onOwnThread { shown.exitStatus() }.status == 0)
        let cleared = try RelayProcess(arguments: ["bindings", "--token", token, "--clear", "--database-path", database], environment: [:])
        #expect(try await onOwnThread { cleared.standardOutput() }.hasSuffix("cleared 1 bindings\n"))
        #expect(try await onOwnThread { cleared.exitStatus() }.status == 0)
        let bad = try RelayProcess(arguments: ["bindings", "--token", "nothex"], environment: [:])
        #expect(try await onOwnThread { bad.exitStatus() }.status == 2)
        try? FileManager.default.removeItem(at: first.directory)
    }
}
