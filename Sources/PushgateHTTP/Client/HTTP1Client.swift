import Foundation

/// An HTTP/1.1 client (http and https, keep-alive) on libcurl, for hosts talking to relays.
///
/// Each request runs on one of up to `maxConnections` worker threads, each holding a libcurl
/// handle whose connection stays open between requests; async callers wait without blocking
/// the cooperative pool. Workers start on demand and stop at ``shutdown()``.
public final class HTTP1Client: Sendable {
    /// Options of every request this client makes.
    public struct Configuration: Sendable {
        /// Concurrent requests (and kept-alive connections) at most.
        public var maxConnections = 16
        /// Deadline of one request, connection included.
        public var timeoutMs = 15_000
        /// Larger answers fail with ``HTTPClientError``.
        public var maxReplyBytes = 1 << 20
        /// An extra trusted CA file (PEM) instead of the system store, e.g. for a local test relay.
        public var caFile: String?

        public init() {}
    }

    public let configuration: Configuration
    private let queue: WorkQueue

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        queue = WorkQueue(maxWorkers: configuration.maxConnections)
    }

    deinit { queue.close() }

    /// POSTs `body` to `url` with `headers` (`name: value` pairs).
    public func post(_ url: String, headers: [(String, String)] = [], body: [UInt8]) async throws -> HTTPClientReply {
        // An empty `Expect:` stops libcurl from waiting for `100 Continue` on larger bodies.
        let lines = headers.map { "\($0.0): \($0.1)" } + ["Expect:"]
        let configuration = configuration
        return try await withCheckedThrowingContinuation { continuation in
            queue.submit(WorkQueue.Job(run: { handle in
                do {
                    continuation.resume(returning: try handle.post(
                        url: url, headers: lines, body: body, timeoutMs: configuration.timeoutMs,
                        maxReplyBytes: configuration.maxReplyBytes, caFile: configuration.caFile))
                } catch {
                    continuation.resume(throwing: error)
                }
            }, cancel: { continuation.resume(throwing: $0) }))
        }
    }

    /// Fails queued requests, lets running ones finish, and returns once every worker has
    /// released its libcurl handle — so a process may exit right after (libcurl and OpenSSL
    /// tear down their global state at exit, which a worker still inside libcurl would race).
    public func shutdown() { queue.close() }
}

/// The jobs of one ``HTTP1Client`` and the threads that run them, each with its own handle.
///
/// `@unchecked Sendable`: every stored `var` is read and written only with `condition` locked;
/// the lock is an `NSCondition` because idle workers wait on it.
private final class WorkQueue: @unchecked Sendable {
    struct Job {
        let run: (CurlEasyHandle) -> Void
        let cancel: (HTTPClientError) -> Void
    }

    private let maxWorkers: Int
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var workers = 0
    private var idleWorkers = 0
    private var closed = false
    /// The worker threads alive: `close()` called on one of them does not wait for itself.
    private var workerThreads = Set<pthread_t>()

    init(maxWorkers: Int) { self.maxWorkers = max(1, maxWorkers) }

    func submit(_ job: Job) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            job.cancel(HTTPClientError("the HTTP client was shut down"))
            return
        }
        jobs.append(job)
        let startWorker = idleWorkers < jobs.count && workers < maxWorkers
        if startWorker { workers += 1 }
        condition.signal()
        condition.unlock()
        if startWorker {
            let thread = Thread { [self] in work() }
            thread.name = "pushgate-http1"
            thread.start()
        }
    }

    /// Fails what is queued, then waits until every other worker has finished its job and
    /// released its handle.
    func close() {
        condition.lock()
        closed = true
        let dropped = jobs
        jobs.removeAll()
        condition.broadcast()
        condition.unlock()
        for job in dropped { job.cancel(HTTPClientError("the HTTP client was shut down")) }
        condition.lock()
        let own = workerThreads.contains(pthread_self()) ? 1 : 0
        while workers > own { condition.wait() }
        condition.unlock()
    }

    /// A worker's loop: the next job on this thread's handle, until the queue is closed; then
    /// the handle is released before the worker counts as gone.
    private func work() {
        condition.lock()
        workerThreads.insert(pthread_self())
        condition.unlock()
        var stranded: [Job] = []
        var failure: HTTPClientError?
        do {
            let handle = try CurlEasyHandle()
            while let job = next() { job.run(handle) }
        } catch {
            failure = error
        }
        condition.lock()
        workers -= 1
        workerThreads.remove(pthread_self())
        if failure != nil, workers == 0 {
            // The last worker that cannot get a handle fails what is queued rather than leave it waiting.
            stranded = jobs
            jobs.removeAll()
        }
        condition.broadcast()
        condition.unlock()
        if let failure { for job in stranded { job.cancel(failure) } }
    }

    /// Waits for a job; nil once closed and empty.
    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty {
            if closed { return nil }
            idleWorkers += 1
            condition.wait()
            idleWorkers -= 1
        }
        return jobs.removeFirst()
    }
}
