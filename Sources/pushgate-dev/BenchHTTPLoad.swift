import Dispatch
import Foundation
import PushgateCommandLine
import Synchronization

/// Posts a list of request bodies, each once, from several threads with one keep-alive
/// ``BenchHTTPConnection`` each, timing every request.
enum BenchHTTPLoad {
    /// The timed part of a load: one latency per request, and its wall-clock length.
    struct Run {
        let latencies: BenchLatencies
        let wall: Duration

        var wallSeconds: Double { wall.inSeconds }
    }

    /// Posts `bodies` to `path` from `threads` threads: each opens its connection and posts one
    /// body untimed (the warm-up), then all start together on the rest, each taking the next
    /// body in turn, with `bearer` as the `Authorization` when given and `headerLines[i]` (when
    /// given, one entry per body) as extra header lines of body `i`. `check` judges every
    /// reply; the first failure stops the load and is thrown.
    static func post(_ bodies: [[UInt8]], to path: String, threads: Int, host: String, port: UInt16, bearer: String? = nil,
                     headerLines: [String]? = nil,
                     check: @escaping @Sendable (BenchHTTPConnection.Reply) throws -> Void) throws -> Run {
        precondition(headerLines == nil || headerLines?.count == bodies.count, "one set of header lines per body")
        precondition(bodies.count > threads, "the load needs more bodies than threads")
        let next = Atomic<Int>(threads)
        let latencies = Mutex(BenchLatencies(capacity: bodies.count - threads))
        let failure = Mutex<String?>(nil)
        let ready = DispatchGroup()
        let done = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            ready.enter()
            done.enter()
            Thread {
                defer { done.leave() }
                var own = BenchLatencies(capacity: (bodies.count - threads) / threads + 1)
                var isReady = false
                do {
                    let connection = try BenchHTTPConnection(host: host, port: port, bearer: bearer)
                    try check(connection.post(path, body: bodies[thread], headerLines: headerLines?[thread] ?? ""))
                    isReady = true
                    ready.leave()
                    start.wait()
                    while failure.withLock({ $0 == nil }) {
                        let index = next.add(1, ordering: .relaxed).oldValue
                        guard index < bodies.count else { break }
                        let sent = ContinuousClock.now
                        let reply = try connection.post(path, body: bodies[index], headerLines: headerLines?[index] ?? "")
                        own.record(sent.duration(to: .now))
                        try check(reply)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                    if !isReady { ready.leave() }
                }
                latencies.withLock { $0.append(contentsOf: own) }
            }.start()
        }
        ready.wait()
        let began = ContinuousClock.now
        for _ in 0..<threads { start.signal() }
        done.wait()
        let wall = began.duration(to: .now)
        if let message = failure.withLock({ $0 }) { throw ToolFailure(message) }
        return Run(latencies: latencies.withLock { $0 }, wall: wall)
    }
}
