import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateTesting
import Synchronization

/// Sends the mix (``SoakMix``) to the host from a pool of threads, one keep-alive connection
/// each, as a hub does: a 503 `store_unavailable` is sent again (``HubRepostSchedule``), a
/// request whose connection a deliberate host restart broke is sent again to the restarted host
/// (``HostRestartGate``), and any other answer but a 2xx stops the soak. The latency of every
/// `POST /api/events`, from the time it was due to its 2xx answer, goes into the current
/// window, which the sampler takes every 10 s.
final class SoakLoad: Sendable {
    /// What the load did since the last ``takeWindow()``.
    struct Window: Sendable {
        /// `POST /api/events`, due to 2xx answer: a stall delays the requests due meanwhile, and
        /// their latencies count it (no coordinated omission).
        var eventLatencies = BenchLatencies(capacity: 0)
        /// Requests answered 2xx.
        var requests = 0
        /// Requests sent again (503 `store_unavailable`, a connection lost to a restart).
        var resent = 0
    }

    /// How long a reply may stop coming: longer than the host's own wait for the relay (15 s).
    static let receiveTimeoutSeconds = 30

    private let port: UInt16
    private let accessToken: String
    private let mix = SoakMix()
    private let restarts: HostRestartGate
    private let window = Mutex(Window())
    /// The index in the mix of the next request; it runs on across ``run(threads:rate:until:)`` calls.
    private let next = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    init(port: UInt16, accessToken: String, restarts: HostRestartGate) {
        self.port = port
        self.accessToken = accessToken
        self.restarts = restarts
    }

    /// Runs `threads` threads until `end`. With `rate` (requests a second) request `n` of this
    /// run goes out no earlier than `n / rate` seconds after the start, so the load is open: a
    /// host that stalls finds the requests due meanwhile waiting for it. Without, each thread
    /// sends its next request as soon as its last is answered (closed: the host's capacity).
    /// Returns the requests answered 2xx; throws the first failure once every thread has stopped.
    func run(threads: Int, rate: Double?, until end: ContinuousClock.Instant) throws -> Int {
        let first = next.load(ordering: .relaxed)
        let start = ContinuousClock.now
        let answered = Atomic<Int>(0)
        let failure = Mutex<String?>(nil)
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            Thread { [self] in
                defer { done.leave() }
                var connection: BenchHTTPConnection?
                while failure.withLock({ $0 == nil }), !stopped.load(ordering: .relaxed) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    let due = rate.map { start + .seconds(Double(index - first) / $0) } ?? .now
                    guard due < end else { break }
                    if due > .now { Thread.sleep(forTimeInterval: ContinuousClock.now.duration(to: due).inSeconds) }
                    do {
                        try send(mix.request(index), due: due, over: &connection)
                        answered.add(1, ordering: .relaxed)
                    } catch {
                        failure.withLock { $0 = $0 ?? "\(error)" }
                    }
                }
            }.start()
        }
        done.wait()
        if let message = failure.withLock({ $0 }) { throw ToolFailure(message) }
        return answered.load(ordering: .relaxed)
    }

    /// Ends the run under way early: each thread stops after its request in flight.
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// The window since the last call, and a new one.
    func takeWindow() -> Window {
        window.withLock { window in
            defer { window = Window() }
            return window
        }
    }

    /// Sends `request`, due at `due`, until it is answered 2xx, as a hub does.
    private func send(_ request: SoakMix.Request, due: ContinuousClock.Instant, over connection: inout BenchHTTPConnection?) throws {
        var schedule = HubRepostSchedule()
        while true {
            let generation = restarts.current
            let reply: BenchHTTPConnection.Reply
            do {
                if connection == nil {
                    connection = try BenchHTTPConnection(host: "127.0.0.1", port: port, bearer: accessToken,
                                                         receiveTimeoutSeconds: Self.receiveTimeoutSeconds)
                }
                reply = try connection!.request(request.method, request.path, body: request.body)
            } catch {
                connection = nil
                guard restarts.waitIfRestarted(since: generation), schedule.isOpen else { throw error }
                window.withLock { $0.resent += 1 }
                continue
            }
            if (200..<300).contains(reply.status) {
                let latency = due.duration(to: .now)
                window.withLock { window in
                    if request.isEvent { window.eventLatencies.record(latency) }
                    window.requests += 1
                }
                return
            }
            let body = String(decoding: reply.body, as: UTF8.self)
            let error = (try? JSONValue.parse(reply.body))?["error"]?.stringValue
            guard HubRepostSchedule.isStoreUnavailable(status: reply.status, error: error), let backOff = schedule.nextBackOff() else {
                throw ToolFailure("\(request.method) \(request.path) answered \(reply.status): \(body)")
            }
            window.withLock { $0.resent += 1 }
            Thread.sleep(forTimeInterval: backOff.inSeconds)
        }
    }
}
