import CCurl
import Foundation
import Glibc

/// Runs an ``HTTP1Client``'s requests on one libcurl multi handle.
///
/// The caller's thread adds a request and lets libcurl write it at once
/// (`curl_multi_socket_action`); one loop thread sleeps in epoll(7) over the sockets libcurl
/// asks to watch, and a timerfd for libcurl's timer, and finishes the answers. So a request
/// over a kept-alive connection wakes a thread only when its answer arrives, and many answers
/// can share one wake-up.
///
/// `@unchecked Sendable`: the multi handle, its easy handles and every stored `var` are used
/// only with `condition` locked; libcurl's socket and timer callbacks run inside calls made
/// with it locked. Continuations are resumed after unlocking.
final class CurlTransferLoop: @unchecked Sendable {
    typealias Completion = (Result<HTTPClientReply, HTTPClientError>) -> Void

    private struct Transfer {
        let easy: CurlEasyHandle
        let completion: Completion
    }

    private let configuration: HTTP1Client.Configuration
    private let condition = NSCondition()
    private let multi: UnsafeMutableRawPointer
    private let epoll: Int32
    /// Fires at libcurl's timer; re-armed only when the timer moves earlier, so a request
    /// rarely costs a system call for it.
    private let timer: Int32
    /// Wakes the loop to stop.
    private let waker: LoopWaker
    /// Running transfers by easy handle address.
    private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Easy handles between transfers; they share the multi handle's connection cache.
    private var idleHandles: [CurlEasyHandle] = []
    /// Sockets registered with `epoll`.
    private var watched: Set<Int32> = []
    /// When libcurl wants `CURL_SOCKET_TIMEOUT` handled (its timer callback), in monotonic ns.
    private var deadline: UInt64?
    /// When `timer` fires next (a firing before `deadline` only wakes the loop to re-arm it).
    private var armed: UInt64?
    private var started = false
    private var closed = false
    private var released = false
    private var loopThread: pthread_t?

    init(configuration: HTTP1Client.Configuration) throws(HTTPClientError) {
        self.configuration = configuration
        guard let waker = try? LoopWaker() else { throw HTTPClientError("cannot create the HTTP client's wake-up pipe") }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        _ = CurlEasyHandle.globalInit
        guard epoll >= 0, timer >= 0, let multi = curl_multi_init() else {
            let reason = Socket.errnoText(errno)
            for descriptor in [epoll, timer] where descriptor >= 0 { Glibc.close(descriptor) }
            throw HTTPClientError("cannot set up the HTTP client's event loop: \(reason)")
        }
        self.waker = waker
        self.epoll = epoll
        self.timer = timer
        self.multi = multi
        for descriptor in [waker.readDescriptor, timer] {
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: descriptor))
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let limit = max(1, configuration.maxConnections)
        _ = pushgate_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        _ = pushgate_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
        _ = pushgate_curl_multi_setopt_socket_function(multi) { _, socket, what, context, _ in
            Unmanaged<CurlTransferLoop>.fromOpaque(context!).takeUnretainedValue().watch(socket, what)
            return 0
        }
        _ = pushgate_curl_multi_setopt_timer_function(multi) { _, timeoutMs, context in
            Unmanaged<CurlTransferLoop>.fromOpaque(context!).takeUnretainedValue().setTimer(timeoutMs)
            return 0
        }
        // Requests beyond the cap wait inside libcurl for a free connection.
        _ = pushgate_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limit)
        _ = pushgate_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limit)
    }

    deinit {
        releaseCurl()
        Glibc.close(epoll)
        Glibc.close(timer)
    }

    /// Starts a POST; `completion` runs once, on whichever thread finishes it.
    func submit(url: String, headers: [String], body: [UInt8], completion: @escaping Completion) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            completion(.failure(HTTPClientError("the HTTP client was shut down")))
            return
        }
        let easy: CurlEasyHandle
        do throws(HTTPClientError) {
            if let idle = idleHandles.popLast() { easy = idle } else { easy = try newHandle() }
        } catch {
            condition.unlock()
            completion(.failure(error))
            return
        }
        let code = easy.start(url: url, headers: headers, body: body)
        guard code == CURLE_OK, curl_multi_add_handle(multi, easy.handle) == CURLM_OK else {
            idleHandles.append(easy)
            condition.unlock()
            completion(easy.finish(code == CURLE_OK ? CURLE_FAILED_INIT : code))
            return
        }
        transfers[easy.handle] = Transfer(easy: easy, completion: completion)
        // Writes the request now on this thread (the timer libcurl just set is due).
        let finished = runDueTimer()
        armTimer()
        let startThread = !started
        started = true
        condition.unlock()
        if startThread { Thread { [self] in run() }.start() }
        complete(finished)
    }

    /// Refuses new requests and lets submitted ones finish; unless called on the loop thread,
    /// returns once the loop has released every libcurl handle.
    func close() {
        condition.lock()
        closed = true
        guard started else {
            releaseCurl()
            condition.unlock()
            return
        }
        condition.unlock()
        waker.wake()
        condition.lock()
        if let loopThread, pthread_equal(loopThread, pthread_self()) != 0 {
            condition.unlock()
            return
        }
        while !released { condition.wait() }
        condition.unlock()
    }

    // MARK: Loop thread

    private func run() {
        Thread.current.name = "pushgate-http1"
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        condition.lock()
        loopThread = pthread_self()
        while !(closed && transfers.isEmpty) {
            armTimer()
            condition.unlock()
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            condition.lock()
            for event in events.prefix(max(0, Int(count))) {
                if event.data.fd == waker.readDescriptor {
                    waker.drain()
                    continue
                }
                if event.data.fd == timer {
                    var expirations: UInt64 = 0
                    _ = Glibc.read(timer, &expirations, 8)
                    armed = nil
                    continue
                }
                var flags: Int32 = 0
                if event.events & EPOLLIN.rawValue != 0 { flags |= CURL_CSELECT_IN }
                if event.events & EPOLLOUT.rawValue != 0 { flags |= CURL_CSELECT_OUT }
                if event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { flags |= CURL_CSELECT_ERR }
                var running: Int32 = 0
                _ = curl_multi_socket_action(multi, event.data.fd, flags, &running)
            }
            let finished = runDueTimer()
            condition.unlock()
            complete(finished)
            condition.lock()
        }
        releaseCurl()
        condition.broadcast()
        condition.unlock()
    }

    // MARK: With `condition` locked

    /// Handles libcurl's timer while it is due, then collects finished transfers.
    private func runDueTimer() -> [(Completion, Result<HTTPClientReply, HTTPClientError>)] {
        var running: Int32 = 0
        while let due = deadline, due <= Self.now() {
            deadline = nil
            _ = curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
        }
        var finished: [(Completion, Result<HTTPClientReply, HTTPClientError>)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let transfer = transfers.removeValue(forKey: handle) else { continue }
            let result = transfer.easy.finish(pushgate_curl_message_result(message))
            _ = curl_multi_remove_handle(multi, handle)
            idleHandles.append(transfer.easy)
            finished.append((transfer.completion, result))
        }
        return finished
    }

    private func newHandle() throws(HTTPClientError) -> CurlEasyHandle {
        try CurlEasyHandle(timeoutMs: configuration.timeoutMs, maxReplyBytes: configuration.maxReplyBytes, caFile: configuration.caFile)
    }

    /// libcurl's socket callback: what to watch on `socket`.
    private func watch(_ socket: Int32, _ what: Int32) {
        if what == CURL_POLL_REMOVE {
            if watched.remove(socket) != nil { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil) }
            return
        }
        var mask: UInt32 = 0
        if what & CURL_POLL_IN != 0 { mask |= EPOLLIN.rawValue }
        if what & CURL_POLL_OUT != 0 { mask |= EPOLLOUT.rawValue }
        var event = epoll_event(events: mask, data: epoll_data_t(fd: socket))
        let operation = watched.insert(socket).inserted ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        _ = epoll_ctl(epoll, operation, socket, &event)
    }

    /// libcurl's timer callback: -1 removes the timer.
    private func setTimer(_ timeoutMs: Int) {
        deadline = timeoutMs < 0 ? nil : Self.now() + UInt64(timeoutMs) * 1_000_000
    }

    /// Makes `timer` fire by `deadline`; a later `deadline` keeps the earlier firing.
    private func armTimer() {
        guard let deadline, armed.map({ deadline < $0 }) ?? true else { return }
        armed = deadline
        var setting = itimerspec(it_interval: timespec(),
                                 it_value: timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000)))
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &setting, nil)
    }

    /// Frees the easy handles and the multi handle (once, with no transfer running).
    private func releaseCurl() {
        guard !released else { return }
        released = true
        idleHandles.removeAll()
        _ = curl_multi_cleanup(multi)
    }

    // MARK: Helpers

    private func complete(_ finished: [(Completion, Result<HTTPClientReply, HTTPClientError>)]) {
        for (completion, result) in finished { completion(result) }
    }

    /// CLOCK_MONOTONIC in ns, the timerfd's clock; never 0 (an all-zero timerfd setting disarms it).
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return max(1, UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }
}
