@testable import PushgateHTTP
import Testing

/// The pool's decisions, driven event by event with no socket: every interleaving that once could
/// leave a caller waiting forever ends with exactly one `finish` per request.
@Suite("HTTP/2 pool state machine")
struct HTTP2PoolStateMachineTests {
    typealias Action = HTTP2PoolStateMachine.Action

    private static let origin = HTTP2Origin(host: "127.0.0.1", port: 8443)

    /// A machine plus the actions of its last event, summarised as short strings.
    private struct Driver {
        var machine: HTTP2PoolStateMachine
        var now: Int64 = 1_000
        private(set) var log: [String] = []

        init(configure: (inout HTTP2ClientConfiguration) -> Void = { _ in }) {
            var configuration = HTTP2ClientConfiguration()
            configuration.requestTimeoutMilliseconds = 5_000
            configuration.connectTimeoutMilliseconds = 1_000
            configuration.idlePingIntervalMilliseconds = 10_000
            configuration.pingTimeoutMilliseconds = 1_000
            configuration.reconnectBaseDelayMilliseconds = 100
            configure(&configuration)
            machine = HTTP2PoolStateMachine(configuration: configuration)
        }

        @discardableResult
        mutating func send(_ event: HTTP2PoolStateMachine.Event) -> [String] {
            var actions: [Action] = []
            machine.handle(event, now: now, into: &actions)
            log = actions.map(Self.describe)
            return log
        }

        mutating func post(_ id: UInt64, timeout: Int64 = 5_000) -> [String] {
            send(.requestPosted(id, HTTP2PoolStateMachineTests.origin, deadline: now + timeout))
        }

        static func describe(_ action: Action) -> String {
            switch action {
            case .openConnection(let id, _, let attempt): return "open \(id) #\(attempt)"
            case .startStream(let request, let connection): return "start \(request) on \(connection)"
            case .resetStream(let request, let connection): return "reset \(request) on \(connection)"
            case .sendPing(let id): return "ping \(id)"
            case .closeConnection(let id, let error): return "close \(id)" + (error.map { " \($0.kind)" } ?? " gracefully")
            case .finish(let id, .success(let response)): return "finish \(id) \(response.status)"
            case .finish(let id, .failure(let error)): return "finish \(id) \(error.kind)" + (error.mayHaveReachedServer ? " after write" : "")
            case .reportConnectionFailure: return "report failure"
            case .stop: return "stop"
            }
        }

        var statistics: HTTP2OriginStatistics { machine.statistics[HTTP2PoolStateMachineTests.origin] ?? .idle }
    }

    private static let ok = HTTP2Response(status: 200, headers: [], body: [])
    private static let lost = HTTP2ClientError(.connectionLost, detail: "gone")

    @Test("a request opens a connection, waits for SETTINGS, then takes a stream")
    func firstRequest() {
        var pool = Driver()
        #expect(pool.post(1) == ["open 1 #0"])
        #expect(pool.post(2) == [])  // one connection opening is enough to wait for
        #expect(pool.send(.settingsReceived(1, maxConcurrentStreams: 10)) == ["start 1 on 1", "start 2 on 1"])
        #expect(pool.send(.streamClosed(1, 1, .answered(Self.ok))) == ["finish 1 200"])
        #expect(pool.statistics == HTTP2OriginStatistics(connections: 1, openStreams: 1, waitingRequests: 0))
    }

    @Test("never more streams than SETTINGS allows; a closed stream frees its slot for the next request")
    func streamLimit() {
        var pool = Driver { $0.maxConnectionsPerOrigin = 1 }
        _ = pool.post(1)
        _ = pool.post(2)
        _ = pool.post(3)
        #expect(pool.send(.settingsReceived(1, maxConcurrentStreams: 2)) == ["start 1 on 1", "start 2 on 1"])
        #expect(pool.statistics.waitingRequests == 1)
        #expect(pool.send(.streamClosed(1, 2, .answered(Self.ok))) == ["finish 2 200", "start 3 on 1"])
        // A SETTINGS that lowers the limit holds new streams until enough have closed.
        #expect(pool.send(.settingsReceived(1, maxConcurrentStreams: 1)) == [])
        #expect(pool.post(4) == [])
        #expect(pool.send(.streamClosed(1, 1, .answered(Self.ok))) == ["finish 1 200"])
        #expect(pool.send(.streamClosed(1, 3, .answered(Self.ok))) == ["finish 3 200", "start 4 on 1"])
    }

    @Test("a second connection opens only while the first is saturated, up to the limit")
    func extraConnections() {
        var pool = Driver { $0.maxConnectionsPerOrigin = 2 }
        _ = pool.post(1)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 1))
        #expect(pool.post(2) == ["open 2 #1"])
        #expect(pool.send(.settingsReceived(2, maxConcurrentStreams: 1)) == ["start 2 on 2"])
        #expect(pool.post(3) == [])  // at the limit: it waits for a stream
        #expect(pool.statistics == HTTP2OriginStatistics(connections: 2, openStreams: 2, waitingRequests: 1))
    }

    @Test("cancellation before registration: the cancel that arrives first is ignored, the one after the request ends it")
    func cancelBeforeRegistration() {
        var pool = Driver()
        #expect(pool.send(.requestCancelled(1)) == [])
        #expect(pool.post(1) == ["open 1 #0"])
        // HTTP2ClientPool.send posts the cancellation again after the request when its task is cancelled.
        #expect(pool.send(.requestCancelled(1)) == ["finish 1 cancelled"])
        #expect(pool.statistics.waitingRequests == 0)
        #expect(pool.send(.settingsReceived(1, maxConcurrentStreams: 10)) == [])
    }

    @Test("cancelling an in-flight request resets its stream, which stays counted until it closes")
    func cancelInFlight() {
        var pool = Driver { $0.maxConnectionsPerOrigin = 1 }
        _ = pool.post(1)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 1))
        _ = pool.post(2)
        #expect(pool.send(.requestCancelled(1)) == ["reset 1 on 1", "finish 1 cancelled after write"])
        #expect(pool.statistics.openStreams == 1)
        #expect(pool.send(.streamClosed(1, 1, .failed(HTTP2ClientError(.streamReset, detail: "cancel")))) == ["start 2 on 1"])
        #expect(pool.send(.requestCancelled(1)) == [])  // a late duplicate does nothing
    }

    @Test("a failed connection with queued requests fails them, backs off, and the next request waits for the clock")
    func connectionFailureWithQueue() {
        var pool = Driver()
        _ = pool.post(1)
        _ = pool.post(2)
        let failed = HTTP2ClientError(.connectFailed, detail: "refused")
        #expect(pool.send(.connectionClosed(1, failed, sent: [])) == ["report failure", "finish 1 connect failed", "finish 2 connect failed"])
        #expect(pool.statistics == .idle)
        #expect(pool.post(3) == [])  // 100 ms back-off
        #expect(pool.machine.nextTimer == pool.now + 100)
        pool.now += 99
        #expect(pool.send(.tick) == [])
        pool.now += 1
        #expect(pool.send(.tick) == ["open 2 #1"])
        _ = pool.send(.connectionClosed(2, failed, sent: []))
        _ = pool.post(4)
        #expect(pool.machine.nextTimer == pool.now + 200)  // doubled
    }

    @Test("a connection lost with streams in flight: sent ones fail, unsent ones go out on the next connection")
    func connectionLostInFlight() {
        var pool = Driver()
        _ = pool.post(1)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        _ = pool.send(.streamClosed(1, 1, .answered(Self.ok)))  // served: no back-off afterwards
        _ = pool.post(2)
        _ = pool.post(3)
        #expect(pool.send(.connectionClosed(1, Self.lost, sent: [2])) == ["finish 2 connection lost after write", "open 2 #1"])
        #expect(pool.statistics.waitingRequests == 1)
        #expect(pool.send(.settingsReceived(2, maxConcurrentStreams: 10)) == ["start 3 on 2"])
    }

    @Test("GOAWAY with streams in flight: accepted ones finish there, refused ones retry once elsewhere, then fail")
    func goawayInFlight() {
        var pool = Driver { $0.maxConnectionsPerOrigin = 1 }
        for id: UInt64 in 1...3 { _ = pool.post(id) }
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        #expect(pool.send(.goawayReceived(1)) == [])  // streams open: it drains
        // A draining connection does not count toward the limit: the first refusal opens another.
        #expect(pool.send(.streamClosed(1, 2, .refused)) == ["open 2 #1"])
        #expect(pool.send(.streamClosed(1, 3, .refused)) == [])
        #expect(pool.statistics.waitingRequests == 2)
        // The last accepted stream ends: the drained connection closes gracefully.
        #expect(pool.send(.streamClosed(1, 1, .answered(Self.ok))) == ["finish 1 200", "close 1 gracefully"])
        #expect(pool.send(.connectionClosed(1, HTTP2ClientError(.shutdown, detail: "closed"), sent: [])) == [])
        // Refused requests go back to the front of the queue, the latest refusal first.
        #expect(pool.send(.settingsReceived(2, maxConcurrentStreams: 10)) == ["start 3 on 2", "start 2 on 2"])
        #expect(pool.send(.streamClosed(2, 2, .answered(Self.ok))) == ["finish 2 200"])
        #expect(pool.send(.streamClosed(2, 3, .refused)) == ["finish 3 refused"])
    }

    @Test("a deadline firing while the answer arrives: whichever comes first wins, the other is ignored")
    func deadlineAgainstAnswer() {
        var pool = Driver()
        _ = pool.post(1, timeout: 100)
        _ = pool.post(2, timeout: 100)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        // Request 1: the answer was read in the same pass, before the tick.
        #expect(pool.send(.streamClosed(1, 1, .answered(Self.ok))) == ["finish 1 200"])
        pool.now += 100
        // Request 2: the tick comes first; its answer, already on the wire, closes the stream.
        #expect(pool.send(.tick) == ["reset 2 on 1", "finish 2 timeout after write"])
        #expect(pool.statistics.openStreams == 1)
        #expect(pool.send(.streamClosed(1, 2, .answered(Self.ok))) == [])
        #expect(pool.statistics.openStreams == 0)
    }

    @Test("a request waiting for a stream times out without a reset and leaves the queue")
    func deadlineWhileWaiting() {
        var pool = Driver()
        _ = pool.post(1, timeout: 50)
        pool.now += 50
        #expect(pool.send(.tick) == ["finish 1 timeout"])
        #expect(pool.statistics.waitingRequests == 0)
        #expect(pool.send(.settingsReceived(1, maxConcurrentStreams: 10)) == [])
    }

    @Test("a connection that never sends SETTINGS is closed at the connect timeout and its requests fail")
    func connectTimeout() {
        var pool = Driver()
        _ = pool.post(1)
        pool.now += 1_000
        #expect(pool.send(.tick) == ["close 1 connect failed"])
        #expect(pool.send(.connectionClosed(1, HTTP2ClientError(.connectFailed, detail: "timeout"), sent: []))
                    == ["report failure", "finish 1 connect failed"])
    }

    @Test("an idle connection is PINGed; silence for the PING timeout closes it and fails its sent streams")
    func idlePing() {
        var pool = Driver()
        _ = pool.post(1, timeout: 60_000)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        pool.now += 10_000
        #expect(pool.send(.tick) == ["ping 1"])
        pool.now += 999
        #expect(pool.send(.tick) == [])
        pool.now += 1
        #expect(pool.send(.tick) == ["close 1 connection lost"])
        #expect(pool.send(.connectionClosed(1, Self.lost, sent: [1])) == ["finish 1 connection lost after write", "report failure"])
    }

    @Test("bytes from the peer restart the idle interval")
    func activityDefersPing() {
        var pool = Driver()
        _ = pool.post(1, timeout: 60_000)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        pool.now += 9_000
        _ = pool.send(.bytesReceived(1))
        pool.now += 9_000
        #expect(pool.send(.tick) == [])
        #expect(pool.machine.nextTimer == pool.now + 1_000)
    }

    @Test("the queue bound fails the excess at once")
    func queueBound() {
        var pool = Driver { $0.maxQueuedRequestsPerOrigin = 2 }
        _ = pool.post(1)
        _ = pool.post(2)
        #expect(pool.post(3) == ["finish 3 queue full"])
    }

    @Test("shutdown waits for accepted requests, then closes every connection and stops")
    func shutdown() {
        var pool = Driver()
        _ = pool.post(1)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        #expect(pool.send(.shutdownRequested) == [])
        #expect(pool.send(.streamClosed(1, 1, .answered(Self.ok))) == ["finish 1 200", "close 1 gracefully", "stop"])
        #expect(pool.machine.stopped)
    }

    @Test("shutdown with a request waiting on a failing origin: the failure finishes it and the pool stops")
    func shutdownWithQueuedRequest() {
        var pool = Driver()
        _ = pool.post(1, timeout: 1_500)
        _ = pool.send(.shutdownRequested)
        #expect(pool.send(.tick) == [])
        pool.now += 1_000
        #expect(pool.send(.tick) == ["close 1 connect failed"])
        // A connection closing during shutdown is no back-off failure: the request keeps its chance.
        #expect(pool.send(.connectionClosed(1, HTTP2ClientError(.connectFailed, detail: "timeout"), sent: [])) == ["open 2 #1"])
        pool.now += 500
        #expect(pool.send(.tick) == ["finish 1 timeout", "close 2 gracefully", "stop"])
    }

    @Test("a stream whose HEADERS never left is sent again without using its retry")
    func notSentIsNoRetry() {
        var pool = Driver { $0.maxConnectionsPerOrigin = 1 }
        _ = pool.post(1)
        _ = pool.send(.settingsReceived(1, maxConcurrentStreams: 10))
        #expect(pool.send(.streamClosed(1, 1, .notSent)) == ["start 1 on 1"])
        #expect(pool.send(.streamClosed(1, 1, .refused)) == ["start 1 on 1"])
        #expect(pool.send(.streamClosed(1, 1, .refused)) == ["finish 1 refused"])
    }
}
