internal import CCurl
internal import CLinux
import Foundation
import Glibc

/// Runs an ``HTTP1Client``'s requests on one libcurl multi handle.
///
/// The caller's thread adds a request and lets libcurl write it at once
/// (`curl_multi_socket_action`); an ``EpollEventLoop`` — the client's own, or one shared with
/// an HTTP server — watches the sockets libcurl asks for and a timerfd for libcurl's timer, and
/// its thread finishes the answers. So a request over a kept-alive connection wakes a thread
/// only when its answer arrives, and many answers can share one wake-up.
///
/// `@unchecked Sendable`: the multi handle, its easy handles and every stored `var` are used
/// only with `condition` locked; libcurl's socket and timer callbacks run inside calls made
/// with it locked. Continuations are resumed after unlocking.
final class CurlTransferLoop: @unchecked Sendable {
    typealias Completion = (Result<HTTPClientReply, HTTPClientError>) -> Void
    private typealias Finished = [(Completion, Result<HTTPClientReply, HTTPClientError>)]

    private struct Transfer {
        let easy: CurlEasyHandle
        let completion: Completion
    }

    private let configuration: HTTP1Client.Configuration
    private let condition = NSCondition()
    private let multi: UnsafeMutableRawPointer
    private let loop: EpollEventLoop
    /// Whether `loop` is this client's own, to be closed with it.
    private let ownsLoop: Bool
    /// Fires at libcurl's timer; a request rarely costs a system call for it.
    private let timer: EarliestDeadlineTimer
    /// Running transfers by easy handle address.
    private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Easy handles between transfers; they share the multi handle's connection cache.
    private var idleHandles: [CurlEasyHandle] = []
    /// When libcurl wants `CURL_SOCKET_TIMEOUT` handled (its timer callback), in monotonic ns.
    private var deadline: UInt64?
    private var closed = false
    private var released = false

    init(configuration: HTTP1Client.Configuration, loop shared: EpollEventLoop?) throws(HTTPClientError) {
        self.configuration = configuration
        let timer: EarliestDeadlineTimer
        let loop: EpollEventLoop
        do {
            timer = try EarliestDeadlineTimer()
            if let shared { loop = shared } else { loop = try EpollEventLoop() }
        } catch {
            throw HTTPClientError("cannot set up the HTTP client's event loop: \(error)")
        }
        _ = CurlEasyHandle.globalInit
        guard let multi = curl_multi_init() else {
            if shared == nil { loop.close() }
            throw HTTPClientError("cannot set up the HTTP client's event loop: curl_multi_init failed")
        }
        self.timer = timer
        self.multi = multi
        self.loop = loop
        ownsLoop = shared == nil
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
        // The loop holds this object through the handler until `close()` unwatches it.
        loop.watch(timer.descriptor, events: EPOLLIN.rawValue) { [self] _ in drive { _ in self.timer.fired() } }
    }

    /// Starts a POST of `body`, or a GET when it is nil; `completion` runs once, on whichever
    /// thread finishes it.
    func submit(url: String, headers: [String], body: [UInt8]?, completion: @escaping Completion) {
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
        condition.unlock()
        complete(finished)
    }

    /// Refuses new requests and lets submitted ones finish; unless called on the loop thread,
    /// returns once every libcurl handle is released.
    func close() {
        condition.lock()
        closed = true
        if transfers.isEmpty {
            releaseCurl()
        } else if !loop.isCurrent {
            while !released { condition.wait() }
        }
        let done = released
        condition.unlock()
        // Otherwise the last transfer's handler finishes the job on the loop thread.
        if done, ownsLoop { loop.close() }
    }

    // MARK: Loop thread

    private func socketReady(_ socket: Int32, _ events: UInt32) {
        var flags: Int32 = 0
        if events & EPOLLIN.rawValue != 0 { flags |= CURL_CSELECT_IN }
        if events & EPOLLOUT.rawValue != 0 { flags |= CURL_CSELECT_OUT }
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { flags |= CURL_CSELECT_ERR }
        drive { multi in
            var running: Int32 = 0
            _ = curl_multi_socket_action(multi, socket, flags, &running)
        }
    }

    /// Runs `step` and what it made due, then finishes transfers and, once closed and idle,
    /// releases libcurl.
    private func drive(_ step: (UnsafeMutableRawPointer) -> Void) {
        condition.lock()
        guard !released else {
            condition.unlock()
            return
        }
        step(multi)
        let finished = runDueTimer()
        armTimer()
        let releasedNow = closed && transfers.isEmpty
        if releasedNow {
            releaseCurl()
            condition.broadcast()
        }
        condition.unlock()
        complete(finished)
        if releasedNow, ownsLoop { loop.close() }
    }

    // MARK: With `condition` locked

    /// Handles libcurl's timer while it is due, then collects finished transfers.
    private func runDueTimer() -> Finished {
        var running: Int32 = 0
        while let due = deadline, due <= EarliestDeadlineTimer.now() {
            deadline = nil
            _ = curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
        }
        var finished: Finished = []
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
        if what == CURL_POLL_REMOVE { return loop.unwatch(socket) }
        var mask: UInt32 = 0
        if what & CURL_POLL_IN != 0 { mask |= EPOLLIN.rawValue }
        if what & CURL_POLL_OUT != 0 { mask |= EPOLLOUT.rawValue }
        loop.watch(socket, events: mask) { [self] events in socketReady(socket, events) }
    }

    /// libcurl's timer callback: -1 removes the timer.
    private func setTimer(_ timeoutMs: Int) {
        deadline = timeoutMs < 0 ? nil : EarliestDeadlineTimer.now() + UInt64(timeoutMs) * 1_000_000
    }

    /// Makes `timer` fire by libcurl's deadline.
    private func armTimer() {
        if let deadline { timer.arm(by: deadline) }
    }

    /// Frees the easy handles and the multi handle (with no transfer running) and leaves the loop.
    private func releaseCurl() {
        guard !released else { return }
        released = true
        idleHandles.removeAll()
        _ = curl_multi_cleanup(multi)
        loop.unwatch(timer.descriptor)
    }

    // MARK: Helpers

    private func complete(_ finished: Finished) {
        for (completion, result) in finished { completion(result) }
    }

}
