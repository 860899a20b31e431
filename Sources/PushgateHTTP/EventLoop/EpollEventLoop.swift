internal import CLinux
import Foundation
import Glibc
import PushgateCore

/// One thread sleeping in epoll(7) over the descriptors of several owners — an HTTP server run
/// without threads of its own, an ``HTTP1Client``, ``HTTP2ClientPool``s — so that a request which
/// arrives on the server, waits for the client's answer and goes back out is handled by one
/// thread, never handed between threads.
///
/// Handlers run on the loop thread, one at a time, without any lock of the loop held, so they
/// may watch and unwatch descriptors and submit jobs. Descriptors are level-triggered.
///
/// `@unchecked Sendable`: `handlers`, `jobs` and the flags are used only with `condition` locked.
public final class EpollEventLoop: @unchecked Sendable {
    /// Called with the ready events (`EPOLLIN`, `EPOLLOUT`, `EPOLLERR`, `EPOLLHUP` bits).
    public typealias Handler = @Sendable (UInt32) -> Void

    private let epoll: Int32
    /// An eventfd that `execute` and `close` make readable to wake the loop from another thread.
    private let wakeDescriptor: Int32
    private let condition = NSCondition()
    private var handlers: [Int32: Handler] = [:]
    private var jobs: [@Sendable () -> Void] = []
    private var loopThread: pthread_t?
    private var closed = false
    private var exited = false

    /// Starts the loop thread, named `threadName` (at most 15 characters, docs/concurrency.md).
    /// - Throws: ``SystemError`` when the eventfd or the epoll descriptor cannot be made.
    public init(threadName: String = "pushgate-loop") throws(SystemError) {
        wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeDescriptor >= 0 else { throw SystemError.last("eventfd") }
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            let failure = errno
            Glibc.close(wakeDescriptor)
            throw SystemError(operation: "epoll_create1", errno: failure)
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeDescriptor))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wakeDescriptor, &event)
        Thread { [self] in run(threadName: threadName) }.start()
    }

    deinit {
        Glibc.close(epoll)
        Glibc.close(wakeDescriptor)
    }

    /// Whether the caller runs on the loop thread.
    public var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Watches `descriptor` for `events` with `handler` (replacing an earlier watch of it).
    @discardableResult
    public func watch(_ descriptor: Int32, events: UInt32, _ handler: @escaping Handler) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let known = handlers.updateValue(handler, forKey: descriptor) != nil
        var event = epoll_event(events: events, data: epoll_data_t(fd: descriptor))
        if epoll_ctl(epoll, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, descriptor, &event) == 0 { return true }
        // A descriptor closed while watched left the epoll set on its own; its number may be back.
        if known, errno == ENOENT, epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 { return true }
        handlers.removeValue(forKey: descriptor)
        return false
    }

    /// Stops watching `descriptor`.
    public func unwatch(_ descriptor: Int32) {
        condition.lock()
        defer { condition.unlock() }
        if handlers.removeValue(forKey: descriptor) != nil { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil) }
    }

    /// Runs `job` on the loop thread soon (after the handlers of the current wake-up).
    public func execute(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        guard !exited else {
            // No loop thread any more, so no handler can run at the same time.
            condition.unlock()
            return job()
        }
        // A non-empty queue has a wake-up pending already, or the loop looks at it before sleeping.
        let wasEmpty = jobs.isEmpty
        jobs.append(job)
        let onLoop = loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        condition.unlock()
        if wasEmpty && !onLoop { wake() }
    }

    /// Runs `job` on the loop thread and returns once it ran (at once when called there).
    public func executeAndWait(_ job: @escaping @Sendable () -> Void) {
        if isCurrent { return job() }
        let done = DispatchSemaphore(value: 0)
        execute {
            job()
            done.signal()
        }
        done.wait()
    }

    /// Ends the loop thread once the jobs queued so far ran; returns when it has ended (at once
    /// when called on it). Descriptors still watched are no longer served.
    public func close() {
        condition.lock()
        closed = true
        let onLoop = loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        condition.unlock()
        guard !onLoop else { return }
        wake()
        condition.lock()
        while !exited { condition.wait() }
        condition.unlock()
    }

    /// Makes the eventfd readable (adding to its counter never blocks short of 2^64 - 1 wake-ups).
    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeDescriptor, &one, 8)
    }

    private func run(threadName: String) {
        nameCurrentThread(threadName)
        condition.lock()
        loopThread = pthread_self()
        condition.unlock()
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var running: [@Sendable () -> Void] = []
        while true {
            // A job queued on the loop thread (by a job) wakes nobody: then only poll.
            condition.lock()
            let queued = !jobs.isEmpty
            condition.unlock()
            let count = epoll_wait(epoll, &events, Int32(events.count), queued ? 0 : -1)
            for event in events.prefix(max(0, Int(count))) {
                let descriptor = event.data.fd
                if descriptor == wakeDescriptor {
                    var wakeUps: UInt64 = 0
                    _ = Glibc.read(wakeDescriptor, &wakeUps, 8)  // resets the counter
                    continue
                }
                condition.lock()
                let handler = handlers[descriptor]
                condition.unlock()
                handler?(event.events)
            }
            // Swapped, so the two arrays' storage is reused and a steady stream of jobs allocates none.
            condition.lock()
            swap(&jobs, &running)
            let stop = closed
            condition.unlock()
            for job in running { job() }
            running.removeAll(keepingCapacity: true)
            if stop { break }
        }
        condition.lock()
        handlers.removeAll()
        exited = true
        let late = jobs
        jobs.removeAll()
        condition.broadcast()
        condition.unlock()
        for job in late { job() }
    }
}
