@testable import PushgateHTTP
import Testing

@Suite("HTTP/2 reconnect back-off and idle PING policies")
struct HTTP2TimingPolicyTests {
    @Test("back-off doubles per consecutive failure up to the maximum, and a success clears it")
    func backoff() {
        var backoff = ReconnectBackoff(baseDelay: 100, maxDelay: 1_000)
        #expect(backoff.allowsAttempt(now: 0))
        var delays: [Int64] = []
        for _ in 0..<6 {
            backoff.recordFailure(now: 10_000)
            delays.append(backoff.notBefore - 10_000)
        }
        #expect(delays == [100, 200, 400, 800, 1_000, 1_000])
        #expect(!backoff.allowsAttempt(now: 10_999))
        #expect(backoff.allowsAttempt(now: 11_000))
        backoff.recordSuccess()
        #expect(backoff.allowsAttempt(now: 10_000))
        backoff.recordFailure(now: 20_000)
        #expect(backoff.notBefore == 20_100)
    }

    @Test("back-off never overflows after very many failures")
    func backoffSaturates() {
        var backoff = ReconnectBackoff(baseDelay: 100, maxDelay: 30_000)
        for _ in 0..<200 { backoff.recordFailure(now: 0) }
        #expect(backoff.notBefore == 30_000)
    }

    @Test("a connection idle for the interval gets one PING; silence for the timeout means dead")
    func idlePing() {
        var ping = IdlePing(interval: 60_000, timeout: 10_000, now: 0)
        #expect(ping.tick(now: 59_999) == .none)
        #expect(ping.nextDue == 60_000)
        #expect(ping.tick(now: 60_000) == .sendPing)
        #expect(ping.tick(now: 65_000) == .none)
        #expect(ping.nextDue == 70_000)
        #expect(ping.tick(now: 70_000) == .dead)
    }

    @Test("any bytes from the peer count as an answer and restart the idle interval")
    func activityResets() {
        var ping = IdlePing(interval: 1_000, timeout: 500, now: 0)
        #expect(ping.tick(now: 1_000) == .sendPing)
        ping.received(now: 1_200)
        #expect(ping.tick(now: 1_700) == .none)
        #expect(ping.tick(now: 2_200) == .sendPing)
    }
}
