internal import CNGHTTP2

/// The nghttp2 client session of one ``HTTP2Connection`` and its open streams, without the
/// socket: the server's bytes go in through ``receive(_:)``, the bytes to send come out of
/// ``appendOutput(to:limit:)``, and what the frames meant comes out of ``takeEvents()``. Keeping the
/// socket out lets the fuzzer feed it hostile frames in-process (docs/fuzzing.md).
final class HTTP2ClientSession {
    /// What the server's frames and the session's own sending meant, oldest first.
    enum Event {
        /// A SETTINGS frame (not an ACK) arrived.
        case settingsReceived(maxConcurrentStreams: Int)
        case goawayReceived(lastStreamID: Int32, errorCode: UInt32)
        case streamClosed(requestID: UInt64, HTTP2PoolStateMachine.StreamOutcome)
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

    let origin: HTTP2Origin
    private let session: NGHTTP2Session
    private let maxResponseBodyBytes: Int
    private var streams: [Int32: Stream] = [:]
    private var streamOfRequest: [UInt64: Int32] = [:]
    private var goawayLastStreamID: Int32?
    /// Filled by the callbacks inside ``receive(_:)`` and ``appendOutput(to:limit:)``; the owner takes them after each call.
    private var events: [Event] = []

    /// A session that announces no server push (nothing else differs from the defaults).
    init(callbacks: NGHTTP2Callbacks, origin: HTTP2Origin, maxResponseBodyBytes: Int) throws(HTTP2ClientError) {
        do {
            session = try NGHTTP2Session(client: callbacks)
        } catch {
            throw HTTP2ClientError(error)
        }
        self.origin = origin
        self.maxResponseBodyBytes = max(0, maxResponseBodyBytes)
        // Callbacks run only inside mem_recv / mem_send, so the user data is set before any can.
        nghttp2_session_set_user_data(session.handle, Unmanaged.passUnretained(self).toOpaque())
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        let status = nghttp2_submit_settings(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        guard status == 0 else {
            throw HTTP2ClientError(.protocolError, detail: "nghttp2_submit_settings: \(NGHTTP2Error.message(status))")
        }
    }

    /// The events since the last call, oldest first.
    func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: Bytes

    /// Processes bytes the server sent; throws when they break the protocol beyond recovery.
    func receive(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTP2ClientError) {
        let consumed = nghttp2_session_mem_recv(session.handle, bytes.baseAddress, bytes.count)
        if consumed < 0 {
            throw HTTP2ClientError(.protocolError, detail: "nghttp2_session_mem_recv: \(NGHTTP2Error.message(consumed))")
        }
    }

    /// Appends what nghttp2 has queued to `output` until it holds at least `limit` bytes or
    /// nothing is left.
    func appendOutput(to output: inout [UInt8], limit: Int) throws(HTTP2ClientError) {
        while output.count < limit {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session.handle, &chunk)
            if count < 0 {
                throw HTTP2ClientError(.protocolError, detail: "nghttp2_session_mem_send: \(NGHTTP2Error.message(count))")
            }
            guard count > 0, let chunk else { return }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
    }

    /// Neither side has anything left to say (GOAWAY exchanged, every stream closed).
    var isFinished: Bool {
        nghttp2_session_want_read(session.handle) == 0 && nghttp2_session_want_write(session.handle) == 0
    }

    /// The requests whose HEADERS went out, so the server may have seen them.
    var sentRequestIDs: Set<UInt64> {
        Set(streams.values.lazy.filter(\.headersSent).map(\.requestID))
    }

    // MARK: Streams

    /// Opens a stream for a request; the state machine checked the server's stream limit.
    func submit(_ requestID: UInt64, headers: HeaderBlock, body: [UInt8]) -> Submission {
        let streamID = headers.withNameValuePairs { pairs -> Int32 in
            if body.isEmpty {
                return nghttp2_submit_request(session.handle, nil, pairs.baseAddress, pairs.count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2ClientSessionCallbacks.readBody)
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

    /// Abandons a request's stream: RST_STREAM(CANCEL). nghttp2 then reports the stream closed,
    /// which frees its slot.
    func reset(_ requestID: UInt64) {
        guard let streamID = streamOfRequest[requestID] else { return }
        nghttp2_submit_rst_stream(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    func sendPing() {
        nghttp2_submit_ping(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Queues GOAWAY(NO_ERROR); the session finishes once it is sent.
    func terminate() {
        nghttp2_session_terminate_session(session.handle, NGHTTP2_NO_ERROR.rawValue)
    }

    // MARK: nghttp2 callbacks (called from inside mem_recv / mem_send)

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            let limit = nghttp2_session_get_remote_settings(session.handle, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            events.append(.settingsReceived(maxConcurrentStreams: Int(min(limit, UInt32(Int32.max)))))
        case NGHTTP2_GOAWAY.rawValue:
            goawayLastStreamID = frame.pointee.goaway.last_stream_id
            events.append(.goawayReceived(lastStreamID: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code))
        default:
            break
        }
    }

    fileprivate func frameSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return }
        streams[frame.pointee.hd.stream_id]?.headersSent = true
    }

    fileprivate func frameNotSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
              let stream = removeStream(frame.pointee.hd.stream_id) else { return }
        // The request never left: it may go out on another connection without using its retry.
        events.append(.streamClosed(requestID: stream.requestID, .notSent))
    }

    fileprivate func headerReceived(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
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

    fileprivate func dataReceived(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let room = maxResponseBodyBytes - stream.responseBody.count
        if data.count > room { stream.responseTruncated = true }
        if room > 0 { stream.responseBody.append(contentsOf: data.prefix(room)) }
    }

    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
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
        events.append(.streamClosed(requestID: stream.requestID, outcome))
    }

    private func removeStream(_ streamID: Int32) -> Stream? {
        guard let stream = streams.removeValue(forKey: streamID) else { return nil }
        streamOfRequest.removeValue(forKey: stream.requestID)
        return stream
    }

    fileprivate func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
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

/// The nghttp2 callbacks of client sessions. They capture nothing: the session's user data is
/// the ``HTTP2ClientSession`` (unretained; it frees its nghttp2 session when it goes away).
enum HTTP2ClientSessionCallbacks {
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

    private static func session(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientSession {
        Unmanaged<HTTP2ClientSession>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        session(userData).frameReceived(frame)
        return 0
    }

    private static let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
        guard let frame else { return 0 }
        session(userData).frameSent(frame)
        return 0
    }

    private static let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, frame, _, userData in
        guard let frame else { return 0 }
        session(userData).frameNotSent(frame)
        return 0
    }

    private static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        session(userData).headerReceived(frame, name: UnsafeBufferPointer(start: name, count: nameLength),
                                         value: UnsafeBufferPointer(start: value, count: valueLength))
        return 0
    }

    private static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        session(userData).dataReceived(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    private static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        session(userData).streamClosed(streamID: streamID, errorCode: errorCode)
        return 0
    }

    /// Supplies a request body; the stream's request is looked up by id.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return session(userData).readBody(streamID: streamID, into: UnsafeMutableBufferPointer(start: buffer, count: length), flags: flags)
    }
}
