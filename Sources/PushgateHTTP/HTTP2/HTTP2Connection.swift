import CNGHTTP2
import Glibc

/// One HTTP/2 connection: a ``TLSConnection`` driven by an nghttp2 client session. Owned and
/// driven by one ``HTTP2EventLoop`` thread; nothing here blocks.
///
/// - Important: never more open streams than the server's SETTINGS_MAX_CONCURRENT_STREAMS;
///   after GOAWAY only streams up to its last-stream-id finish here (relay-protocol.md §7).
final class HTTP2Connection {
    enum State: Equatable {
        /// TCP connect and TLS handshake.
        case handshaking
        /// Preface sent, waiting for the server's first SETTINGS (its stream limit).
        case awaitingSettings
        case ready
        /// No new streams (GOAWAY received, stream ids used up, or shutting down); open ones finish.
        case draining
        case closed
    }

    enum Submission {
        case submitted
        /// The connection cannot take new streams any more; the request is untouched.
        case unavailable
        case failed(HTTP2ClientError)
    }

    private static let outputBatchBytes = 64 * 1024
    private static let inputBufferBytes = 64 * 1024
    /// Reads per wake-up, so one busy connection cannot starve the others on the loop.
    private static let readsPerWakeUp = 32

    unowned let loop: HTTP2EventLoop
    let origin: HTTP2Origin
    let serial: Int
    let peer: String
    private let tls: TLSConnection
    private var session: NGHTTP2Session?
    private(set) var state: State = .handshaking
    private var streams: [Int32: PendingRequest] = [:]
    private var remoteMaxStreams = 0
    private var goawayLastStreamID: Int32?
    /// A response completed here: the server accepts us, so this origin needs no back-off.
    private(set) var servedResponse = false
    /// Why the connection closed, when it was not a clean close.
    private(set) var closeError: HTTP2ClientError?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var input: [UInt8]
    private var wantsWritable = true
    /// The read budget ran out with data possibly still buffered.
    private(set) var hasUnreadInput = false
    private var keepAlive: IdlePing
    private let connectDeadline: Int64
    private let maxResponseBodyBytes: Int

    init(loop: HTTP2EventLoop, origin: HTTP2Origin, serial: Int, address: SocketAddress, context: TLSContext,
         configuration: HTTP2ClientConfiguration, now: Int64) throws {
        self.loop = loop
        self.origin = origin
        self.serial = serial
        self.peer = "\(address)"
        do {
            tls = try TLSConnection.connect(to: address, serverName: origin.host, context: context)
        } catch let error as TLSError {
            throw HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(address)", tls: error)
        }
        input = [UInt8](repeating: 0, count: Self.inputBufferBytes)
        output.reserveCapacity(Self.outputBatchBytes + 16 * 1024)
        keepAlive = IdlePing(interval: configuration.idlePingIntervalMilliseconds, timeout: configuration.pingTimeoutMilliseconds, now: now)
        connectDeadline = now + configuration.connectTimeoutMilliseconds
        maxResponseBodyBytes = max(0, configuration.maxResponseBodyBytes)
    }

    var fileDescriptor: Int32 { tls.fileDescriptor }

    /// Still connecting: the pool waits for it rather than opening another.
    var isOpening: Bool { state == .handshaking || state == .awaitingSettings }

    /// Counts toward the per-origin connection limit (draining ones are on their way out).
    var isUsable: Bool { state != .draining && state != .closed }

    /// Streams that may be opened now.
    var freeStreams: Int { state == .ready ? max(0, remoteMaxStreams - streams.count) : 0 }

    var openStreams: Int { streams.count }

    /// The poll(2) events this connection waits for.
    var pollEvents: Int16 {
        guard state != .closed else { return 0 }
        return Int16(POLLIN) | (wantsWritable ? Int16(POLLOUT) : 0)
    }

    /// When ``tick(now:)`` next has work: the connect deadline or the keep-alive.
    var nextTimer: Int64 {
        switch state {
        case .handshaking, .awaitingSettings: return connectDeadline
        case .ready, .draining: return keepAlive.nextDue
        case .closed: return .max
        }
    }

    // MARK: I/O

    /// The socket is ready (or has buffered input): advance the handshake or read what arrived.
    func handleEvents(now: Int64) {
        switch state {
        case .handshaking: advanceHandshake(now: now)
        case .awaitingSettings, .ready, .draining: readAvailable(now: now)
        case .closed: break
        }
    }

    private func advanceHandshake(now: Int64) {
        do {
            switch try tls.handshake() {
            case .wantRead: wantsWritable = false
            case .wantWrite: wantsWritable = true
            case .complete:
                guard tls.negotiatedProtocol == "h2" else {
                    throw TLSError(.alpnRefused, operation: "handshake with \(peer)",
                                   detail: "the server chose \(tls.negotiatedProtocol ?? "no protocol"), not h2")
                }
                try startSession()
                state = .awaitingSettings
                wantsWritable = true
                keepAlive.received(now: now)
                readAvailable(now: now)
            }
        } catch let error as TLSError {
            close(HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(peer)", tls: error))
        } catch {
            close(error as? HTTP2ClientError ?? HTTP2ClientError(.connectFailed, detail: "\(error)"))
        }
    }

    private func startSession() throws {
        let session: NGHTTP2Session
        do {
            session = try NGHTTP2Session(client: loop.callbacks, userData: Unmanaged.passUnretained(self).toOpaque())
        } catch {
            throw HTTP2ClientError(error)
        }
        self.session = session
        // No server push; nothing else differs from the defaults.
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        let status = nghttp2_submit_settings(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        guard status == 0 else {
            throw HTTP2ClientError(.protocolError, detail: "nghttp2_submit_settings: \(NGHTTP2Error.message(status))")
        }
    }

    private func readAvailable(now: Int64) {
        guard let session else { return }
        hasUnreadInput = false
        var received = false
        defer { if received { keepAlive.received(now: now) } }
        for _ in 0..<Self.readsPerWakeUp {
            let result: TLSConnection.IOResult
            do {
                result = try input.withUnsafeMutableBytes { try tls.read(into: $0) }
            } catch let error as TLSError {
                return close(HTTP2ClientError(.connectionLost, detail: "reading from \(origin) failed", tls: error))
            } catch {
                return close(HTTP2ClientError(.connectionLost, detail: "\(error)"))
            }
            switch result {
            case .transferred(let count):
                received = true
                let consumed = input.withUnsafeBufferPointer { nghttp2_session_mem_recv(session.handle, $0.baseAddress, count) }
                if consumed < 0 {
                    return close(HTTP2ClientError(.protocolError, detail: "nghttp2_session_mem_recv: \(NGHTTP2Error.message(consumed))"))
                }
            case .wantRead:
                return
            case .wantWrite:
                wantsWritable = true
                return
            case .closed:
                return close(HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection"))
            }
        }
        hasUnreadInput = true
    }

    /// Serialises everything nghttp2 has queued into one buffer and writes it with as few
    /// SSL_write calls as the socket allows. Closes a connection that has nothing left to do.
    func flush() {
        guard let session, state != .closed, state != .handshaking else { return }
        while true {
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                while output.count < Self.outputBatchBytes {
                    var chunk: UnsafePointer<UInt8>?
                    let count = nghttp2_session_mem_send(session.handle, &chunk)
                    if count < 0 {
                        return close(HTTP2ClientError(.protocolError, detail: "nghttp2_session_mem_send: \(NGHTTP2Error.message(count))"))
                    }
                    guard count > 0, let chunk else { break }
                    output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
                }
                if output.isEmpty {
                    wantsWritable = false
                    break
                }
            }
            let result: TLSConnection.IOResult
            do {
                result = try tls.write(output[outputOffset...])
            } catch let error as TLSError {
                return close(HTTP2ClientError(.connectionLost, detail: "writing to \(origin) failed", tls: error))
            } catch {
                return close(HTTP2ClientError(.connectionLost, detail: "\(error)"))
            }
            switch result {
            case .transferred(let count): outputOffset += count
            case .wantWrite:
                wantsWritable = true
                return
            case .wantRead:
                wantsWritable = false
                return
            case .closed:
                return close(HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection"))
            }
        }
        if nghttp2_session_want_read(session.handle) == 0 && nghttp2_session_want_write(session.handle) == 0 {
            close(nil)
        } else if state == .draining && streams.isEmpty {
            closeGracefully()
        }
    }

    // MARK: Streams

    /// Opens a stream for `request`. The caller checked ``freeStreams``.
    func submit(_ request: PendingRequest) -> Submission {
        guard let session, state == .ready else { return .unavailable }
        let streamID = request.headers.withNameValuePairs { pairs -> Int32 in
            if request.body.isEmpty {
                return nghttp2_submit_request(session.handle, nil, pairs.baseAddress, pairs.count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2ConnectionCallbacks.readBody)
            return nghttp2_submit_request(session.handle, nil, pairs.baseAddress, pairs.count, &provider, nil)
        }
        guard streamID > 0 else {
            if streamID == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                // Client stream ids run out after 2^30 requests: finish here, continue on a new connection.
                state = .draining
                return .unavailable
            }
            return .failed(HTTP2ClientError(.protocolError, detail: "nghttp2_submit_request: \(NGHTTP2Error.message(streamID))"))
        }
        streams[streamID] = request
        request.phase = .inFlight(self, streamID: streamID)
        return .submitted
    }

    /// Abandons a stream (deadline or cancellation): RST_STREAM(CANCEL). The stream stays counted
    /// until nghttp2 reports it closed, so it is never leaked or double-counted.
    func reset(streamID: Int32) {
        guard let session, state != .closed else { return }
        nghttp2_submit_rst_stream(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    // MARK: Timers

    func tick(now: Int64) {
        switch state {
        case .handshaking, .awaitingSettings:
            if now >= connectDeadline {
                close(HTTP2ClientError(.connectFailed, detail: "no HTTP/2 connection to \(origin) at \(peer) within the connect timeout"))
            }
        case .ready, .draining:
            switch keepAlive.tick(now: now) {
            case .none: break
            case .sendPing:
                if let session { nghttp2_submit_ping(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) }
            case .dead:
                close(HTTP2ClientError(.connectionLost, detail: "\(origin) did not answer a PING"))
            }
        case .closed:
            break
        }
    }

    // MARK: Closing

    /// Says GOAWAY, sends close_notify and closes; open streams fail with `shutdown`.
    func closeGracefully() {
        guard state != .closed else { return }
        if let session, state != .handshaking {
            nghttp2_session_terminate_session(session.handle, NGHTTP2_NO_ERROR.rawValue)
            state = .draining
            flushOnce(session)
            tls.shutdown()
        }
        close(nil, orphanError: HTTP2ClientError(.shutdown, detail: "the connection was closed"))
    }

    private func flushOnce(_ session: NGHTTP2Session) {
        var chunk: UnsafePointer<UInt8>?
        while true {
            let count = nghttp2_session_mem_send(session.handle, &chunk)
            guard count > 0, let chunk else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
        // Best effort: the socket closes right after, and nothing waits on these bytes.
        if outputOffset < output.count { _ = try? tls.write(output[outputOffset...]) }
    }

    /// Closes at once. Requests that never reached the server go back to the loop's queue;
    /// those that may have reached it fail with `error` (or `orphanError`).
    private func close(_ error: HTTP2ClientError?, orphanError: HTTP2ClientError? = nil) {
        guard state != .closed else { return }
        state = .closed
        closeError = error
        wantsWritable = false
        hasUnreadInput = false
        session = nil
        let orphans = streams
        streams = [:]
        let failure = error ?? orphanError ?? HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection")
        for request in orphans.values.sorted(by: { $0.id < $1.id }) where !request.isFinished {
            if request.headersSent {
                loop.complete(request, .failure(failure))
            } else {
                loop.requeue(request, countsAsRetry: false)
            }
        }
    }

    // MARK: nghttp2 callbacks (called from inside mem_recv / mem_send)

    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            guard let session else { return 0 }
            let limit = nghttp2_session_get_remote_settings(session.handle, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            remoteMaxStreams = Int(min(limit, UInt32(Int32.max)))
            if state == .awaitingSettings { state = .ready }
        case NGHTTP2_GOAWAY.rawValue:
            goawayLastStreamID = frame.pointee.goaway.last_stream_id
            if state != .closed { state = .draining }
            loop.goawayReceived(self, lastStreamID: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
        default:
            break
        }
        return 0
    }

    func frameSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return }
        streams[frame.pointee.hd.stream_id]?.headersSent = true
    }

    func frameNotSent(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
              let request = streams.removeValue(forKey: frame.pointee.hd.stream_id), !request.isFinished else { return }
        // The request never left: it may go out on another connection without using its retry.
        loop.requeue(request, countsAsRetry: false)
    }

    func headerReceived(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
              let request = streams[frame.pointee.hd.stream_id], !request.isFinished else { return }
        if name.elementsEqual(":status".utf8) {
            var status = 0
            for digit in value where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) && status < 1000 {
                status = status * 10 + Int(digit - UInt8(ascii: "0"))
            }
            // A final status after an informational (1xx) block starts the headers afresh.
            request.status = status
            request.responseHeaders.removeAll()
        } else if name.first != UInt8(ascii: ":") {
            request.responseHeaders.append(HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }

    func dataReceived(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let request = streams[streamID], !request.isFinished else { return }
        let room = maxResponseBodyBytes - request.responseBody.count
        if data.count > room { request.responseTruncated = true }
        if room > 0 { request.responseBody.append(contentsOf: data.prefix(room)) }
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let request = streams.removeValue(forKey: streamID), !request.isFinished else { return }
        let refused = errorCode == NGHTTP2_REFUSED_STREAM.rawValue || goawayLastStreamID.map { streamID > $0 } == true
        if errorCode == NGHTTP2_NO_ERROR.rawValue, let status = request.status, status >= 200 {
            if !servedResponse {
                servedResponse = true
                loop.connectionServedResponse(self)
            }
            let response = HTTP2Response(status: status, headers: request.responseHeaders, body: request.responseBody,
                                         bodyTruncated: request.responseTruncated)
            loop.complete(request, .success(response))
        } else if refused {
            // GOAWAY / REFUSED_STREAM guarantee the server did not process it (RFC 9113 §8.7).
            loop.retryRefused(request)
        } else {
            loop.complete(request, .failure(HTTP2ClientError(.streamReset, detail: "\(origin) reset the stream (HTTP/2 error \(errorCode))")))
        }
    }

    func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let request = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(buffer.count, request.body.count - request.bodyOffset)
        if count > 0, let destination = buffer.baseAddress {
            request.body.withUnsafeBufferPointer { body in
                destination.update(from: body.baseAddress! + request.bodyOffset, count: count)
            }
        }
        request.bodyOffset += count
        if request.bodyOffset == request.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
