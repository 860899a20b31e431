import Foundation
import PushgateCore
import PushgateTestSupport
import PushgateTesting
import Testing

/// docs/security.md M6: idle and half-sent connections from a few addresses cannot take every
/// connection slot.
@Suite(.serialized, .hangLimit(.minutes(1))) struct ConnectionSlotAttackTests {
    /// With `MAX_CONNECTIONS` 256, one address holds at most 4 (1/64); eight addresses that each
    /// try to hold 32 (together all 256) keep 4 each, a trusted proxy is not capped, and a
    /// client from another address is served.
    @Test func eightSlowLorisAddressesLeaveRoomForEveryoneElse() async throws {
        let proxy = "127.1.200.1"
        let relay = try await RelayUnderAttack(settings: ["MAX_CONNECTIONS": "256", "TRUSTED_PROXY_ADDRESSES": proxy])
        let host = SigningHost(), token = TestToken.make()
        let port = relay.port
        let held = try await onOwnThread { () throws -> [String: [RawHTTPConnection]] in
            var held: [String: [RawHTTPConnection]] = [:]
            for source in (0 ..< 8).map(attacker) + [proxy] {
                for _ in 0 ..< 32 {
                    let connection = try RawHTTPConnection(port: port, source: source)
                    connection.sendUnlessClosed(RawHTTPConnection.request("GET", "/healthz"))
                    // A refused connection is closed unanswered; a held one answers, then trickles a request it never finishes.
                    guard (try? connection.readResponse())?.status == 200 else { continue }
                    connection.sendUnlessClosed(Array("POST /v1/push/register-token HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
                    held[source, default: []].append(connection)
                }
            }
            return held
        }
        for source in (0 ..< 8).map(attacker) { #expect(held[source]?.count == 4, "\(source)") }
        #expect(held[proxy]?.count == 32, "a trusted proxy carries many clients")
        try await onOwnThread { () throws in
            #expect(try relay.post("register-token", host.register(token, at: relay.nowMs), from: attacker(100)).status == 200)
            #expect(try relay.post("send", host.send([token], at: relay.nowMs), from: attacker(100)).rows.map(\.ok) == [true])
        }
        #expect(relay.delivered(token) == 1)
        withExtendedLifetime(held) {}
        try await relay.stop()
    }
}
