import CLinux
import CNGHTTP2
import Glibc

/// One HTTP/2 connection: a ``TLSConnection`` driven by an nghttp2 client session. It moves
/// bytes and frames only; what to send, when to PING and when to give up is the pool's state
/// machine's (``HTTP2PoolStateMachine``), which it tells what happened through its driver. Owned
/// and driven by one ``HTTP2PoolDriver``, on its loop thread; nothing here blocks.
final class HTTP2Connection {
    enum State: Equatable {
        /// TCP connect and TLS handshake.
        case handshaking
        /// The nghttp2 session runs.
        case session
        case closed
    }

    enum Submission {
        case submitted
        /// The connection's stream ids are used up; the request is untouched.
        case unavailable
        case failed(HTTP2ClientError)
    }

    /// One open stream: its request's bytes going out, its response coming in.
    private final class Stream {
        let requestID: UInt64
        let body: [UInt8]
        /// How much of `body` nghttp2 has taken.
        var bodyOffset = 0
        /// The HEADERS frame went out, so the server may have seen the request.
        var headersSent = false
        var status: Int?
        var responseHeaders: [HTTP2Header] = []
        var responseBody: [UInt8] = []
        var responseTruncated = false

        init(requestID: UInt64, body: [UInt8]) {
            self.requestID = requestID
            self.body = body
        }
    }

    private static let outputBatchBytes = 64 * 1024
    private static let inputBufferBytes = 64 * 1024
    /// Reads per wake-up, so one busy connection cannot starve the others on the loop.
    private static let readsPerWakeUp = 32

    unowned let driver: HTTP2PoolDriver
    let id: HTTP2PoolStateMachine.ConnectionID
    let origin: HTTP2Origin
    let peer: String
    private let tls: TLSConnection
    private var session: NGHTTP2Session?
    private(set) var state: State = .handshaking
    private var streams: [Int32: Stream] = [:]
    private var streamOfRequest: [UInt64: Int32] = [:]
    private var goawayLastStreamID: Int32?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var input: [UInt8]
    private var wantsWritable = true
    /// The read budget ran out with data possibly still buffered.
    private(set) var hasUnreadInput = false
    private let maxResponseBodyBytes: Int

    init(driver: HTTP2PoolDriver, id: HTTP2PoolStateMachine.ConnectionID, origin: HTTP2Origin, address: SocketAddress,
         context: TLSContext, maxResponseBodyBytes: Int) throws(HTTP2ClientError) {
        self.driver = driver
        self.id = id
        self.origin = origin
        self.peer = "\(address)"
        do {
            tls = try TLSConnection.connect(to: address, serverName: origin.host, context: context)
        } catch let error as TLSError {
            throw HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(address)", tls: error)
        } catch {
            throw HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(address): \(error)")
        }
        input = [UInt8](repeating: 0, count: Self.inputBufferBytes)
        output.reserveCapacity(Self.outputBatchBytes + 16 * 1024)
        self.maxResponseBodyBytes = max(0, maxResponseBodyBytes)
    }

    var fileDescriptor: Int32 { tls.fileDescriptor }

    /// The epoll(7) events this connection waits for.
    var epollEvents: UInt32 {
        guard state != .closed else { return 0 }
        return EPOLLIN.rawValue | (wantsWritable ? EPOLLOUT.rawValue : 0)
    }

    /// The events its driver watches the descriptor for (0: not watched).
    var watchedEvents: UInt32 = 0

    // MARK: I/O

    /// The socket is ready (or has buffered input): advance the handshake or read what arrived.
    func handleEvents() {
        switch state {
        case .handshaking: advanceHandshake()
        case .session: readAvailable()
        case .closed: break
        }
    }

    private func advanceHandshake() {
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
                state = .session
                wantsWritable = true
                readAvailable()
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
            session = try NGHTTP2Session(client: driver.callbacks, userData: Unmanaged.passUnretained(self).toOpaque())
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

    private func readAvailable() {
        guard let session else { return }
        hasUnreadInput = false
        var received = false
        defer { if received { driver.record(.bytesReceived(id)) } }
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
        guard let session, state == .session else { return }
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
            close(HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection"))
        }
    }

    // MARK: Streams

    /// Opens a stream for a request; the state machine checked the server's stream limit.
    func submit(_ requestID: UInt64, headers: HeaderBlock, body: [UInt8]) -> Submission {
        guard let session, state == .session else { return .unavailable }
        let streamID = headers.withNameValuePairs { pairs -> Int32 in
            if body.isEmpty {
                return nghttp2_submit_request(session.handle, nil, pairs.baseAddress, pairs.count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2ConnectionCallbacks.readBody)
            return nghttp2_submit_request(session.handle, nil, pairs.baseAddress, pairs.count, &provider, nil)
        }
        guard streamID > 0 else {
            // Client stream ids run out after 2^30 requests: finish here, continue on a new connection.
            if streamID == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue { return .unavailable }
            return .failed(HTTP2ClientError(.protocolError, detail: "nghttp2_submit_request: \(NGHTTP2Error.message(streamID))"))
        }
        streams[streamID] = Stream(requestID: requestID, body: body)
        streamOfRequest[requestID] = streamID
        return .submitted
    }

    /// Abandons a request's stream (deadline or cancellation): RST_STREAM(CANCEL). nghttp2 then
    /// reports the stream closed, which frees its slot.
    func reset(_ requestID: UInt64) {
        guard let session, let streamID = streamOfRequest[requestID] else { return }
        nghttp2_submit_rst_stream(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    func sendPing() {
        if let session { nghttp2_submit_ping(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) }
    }

    // MARK: Closing

    /// Says GOAWAY, sends close_notify and closes; requests that may have reached the server fail with `shutdown`.
    func closeGracefully() {
        guard state != .closed else { return }
        if let session {
            nghttp2_session_terminate_session(session.handle, NGHTTP2_NO_ERROR.rawValue)
            flushOnce(session)
            tls.shutdown()
        }
        close(HTTP2ClientError(.shutdown, detail: "the connection was closed"))
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

    /// Closes at once and tells the driver which requests may have reached the server.
    func close(_ error: HTTP2ClientError) {
        guard state != .closed else { return }
        state = .closed
        wantsWritable = false
        hasUnreadInput = false
        session = nil
        var sent: Set<UInt64> = []
        for stream in streams.values where stream.headersSent { sent.insert(stream.requestID) }
        streams = [:]
        streamOfRequest = [:]
        driver.connectionClosed(self, error, sent: sent)
    }

    // MARK: nghttp2 callbacks (called from inside mem_recv / mem_send)

    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            guard let session else { return 0 }
            let limit = nghttp2_session_get_remote_settings(session.handle, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            driver.record(.settingsReceived(id, maxConcurrentStreams: Int(min(limit, UInt32(Int32.max)))))
        case NGHTTP2_GOAWAY.rawValue:
            goawayLastStreamID = frame.pointee.goaway.last_stream_id
            driver.goawayReceived(self, lastStreamID: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
        default:
            break
        }
        return 0
    }

    func frameSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return }
        streams[frame.pointee.hd.stream_id]?.headersSent = true
    }

    func frameNotSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
              let stream = removeStream(frame.pointee.hd.stream_id) else { return }
        // The request never left: it may go out on another connection without using its retry.
        driver.record(.streamClosed(id, stream.requestID, .notSent))
    }

    func headerReceived(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
              let stream = streams[frame.pointee.hd.stream_id] else { return }
        if name.elementsEqual(":status".utf8) {
            var status = 0
            for digit in value where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) && status < 1000 {
                status = status * 10 + Int(digit - UInt8(ascii: "0"))
            }
            // A final status after an informational (1xx) block starts the headers afresh.
            stream.status = status
            stream.responseHeaders.removeAll()
        } else if name.first != UInt8(ascii: ":") {
            stream.responseHeaders.append(HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }

    func dataReceived(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let room = maxResponseBodyBytes - stream.responseBody.count
        if data.count > room { stream.responseTruncated = true }
        if room > 0 { stream.responseBody.append(contentsOf: data.prefix(room)) }
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = removeStream(streamID) else { return }
        let outcome: HTTP2PoolStateMachine.StreamOutcome
        if errorCode == NGHTTP2_NO_ERROR.rawValue, let status = stream.status, status >= 200 {
            outcome = .answered(HTTP2Response(status: status, headers: stream.responseHeaders, body: stream.responseBody,
                                              bodyTruncated: stream.responseTruncated))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue || goawayLastStreamID.map({ streamID > $0 }) == true {
            // GOAWAY / REFUSED_STREAM guarantee the server did not process it (RFC 9113 §8.7).
            outcome = .refused
        } else {
            outcome = .failed(HTTP2ClientError(.streamReset, detail: "\(origin) reset the stream (HTTP/2 error \(errorCode))").afterWrite())
        }
        driver.record(.streamClosed(id, stream.requestID, outcome))
    }

    private func removeStream(_ streamID: Int32) -> Stream? {
        guard let stream = streams.removeValue(forKey: streamID) else { return nil }
        streamOfRequest.removeValue(forKey: stream.requestID)
        return stream
    }

    func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(buffer.count, stream.body.count - stream.bodyOffset)
        if count > 0, let destination = buffer.baseAddress {
            stream.body.withUnsafeBufferPointer { body in
                destination.update(from: body.baseAddress! + stream.bodyOffset, count: count)
            }
        }
        stream.bodyOffset += count
        if stream.bodyOffset == stream.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

/// The nghttp2 callbacks of client connections. They capture nothing: the session's user data is
/// the ``HTTP2Connection`` (unretained; the connection frees its session before it goes away).
enum HTTP2ConnectionCallbacks {
    static func make() throws(HTTP2ClientError) -> NGHTTP2Callbacks {
        do {
            return try NGHTTP2Callbacks { table in
                nghttp2_session_callbacks_set_on_frame_recv_callback(table, onFrameReceived)
                nghttp2_session_callbacks_set_on_frame_send_callback(table, onFrameSent)
                nghttp2_session_callbacks_set_on_frame_not_send_callback(table, onFrameNotSent)
                nghttp2_session_callbacks_set_on_header_callback(table, onHeader)
                nghttp2_session_callbacks_set_on_data_chunk_recv_callback(table, onDataChunk)
                nghttp2_session_callbacks_set_on_stream_close_callback(table, onStreamClose)
            }
        } catch {
            throw HTTP2ClientError(error)
        }
    }

    static func connection(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection {
        Unmanaged<HTTP2Connection>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        return connection(userData).frameReceived(frame)
    }

    private static let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
        guard let frame else { return 0 }
        connection(userData).frameSent(frame)
        return 0
    }

    private static let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, frame, _, userData in
        guard let frame else { return 0 }
        connection(userData).frameNotSent(frame)
        return 0
    }

    private static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        connection(userData).headerReceived(frame, name: UnsafeBufferPointer(start: name, count: nameLength),
                                            value: UnsafeBufferPointer(start: value, count: valueLength))
        return 0
    }

    private static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        connection(userData).dataReceived(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    private static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        connection(userData).streamClosed(streamID: streamID, errorCode: errorCode)
        return 0
    }

    /// Supplies a request body; the stream's request is looked up by id.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return connection(userData).readBody(streamID: streamID, into: UnsafeMutableBufferPointer(start: buffer, count: length), flags: flags)
    }
}
