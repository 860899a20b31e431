internal import CNGHTTP2
import PushgateHTTP

/// One nghttp2 server session driven by bytes: ``receive(_:)`` feeds it what the client sent,
/// ``takeEvents()`` returns what happened, ``send(into:)`` collects every frame ready to go out.
///
/// Not thread-safe: one I/O thread owns it.
final class HTTP2ServerSession {
    /// Why the server resets a stream, which decides what the client may do with it.
    enum ResetReason {
        /// REFUSED_STREAM: the server did not process it, so the client may retry it.
        case refused
        /// INTERNAL_ERROR: the server failed; the client cannot tell whether it was processed.
        case internalError

        var errorCode: UInt32 {
            switch self {
            case .refused: NGHTTP2_REFUSED_STREAM.rawValue
            case .internalError: NGHTTP2_INTERNAL_ERROR.rawValue
            }
        }
    }

    /// Something the client did, in the order nghttp2 reported it.
    enum Event {
        /// The client opened a stream (its request HEADERS began).
        case opened(streamId: Int32)
        /// A request arrived complete (END_STREAM seen).
        case request(streamId: Int32, FakeHTTP2Request)
        /// The stream closed, answered or not.
        case closed(streamId: Int32)
    }

    /// Request bodies are kept up to this size; anything longer is too large for APNs and FCM anyway.
    static let bodyCaptureLimit = 65_536

    private let session: NGHTTP2Session
    private var incoming: [Int32: FakeHTTP2Request] = [:]
    private var outgoingBodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    private var events: [Event] = []

    /// Starts a server session that announces `maxConcurrentStreams` and a large connection window.
    init(maxConcurrentStreams: Int) throws {
        session = try NGHTTP2Session(server: Callbacks.make())
        nghttp2_session_set_user_data(session.handle, Unmanaged.passUnretained(self).toOpaque())
        try submitSettings(maxConcurrentStreams: maxConcurrentStreams)
        // A wide connection window lets a thousand small request bodies arrive without waiting.
        let window = nghttp2_session_set_local_window_size(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
        guard window == 0 else { throw NGHTTP2Error(operation: "nghttp2_session_set_local_window_size", code: Int(window)) }
    }

    /// Feeds bytes received from the client.
    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let consumed = nghttp2_session_mem_recv(session.handle, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard consumed >= 0 else { throw NGHTTP2Error(operation: "nghttp2_session_mem_recv", code: consumed) }
    }

    /// The events since the last call.
    func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Appends every frame nghttp2 has ready to `buffer`, so the caller can write them in one go.
    func send(into buffer: inout [UInt8]) throws {
        while true {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session.handle, &chunk)
            guard length >= 0 else { throw NGHTTP2Error(operation: "nghttp2_session_mem_send", code: length) }
            guard length > 0, let chunk else { return }
            buffer.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
    }

    /// Whether the session is done: nothing more to read or write (after GOAWAY, or a fatal error).
    var isFinished: Bool { nghttp2_session_want_read(session.handle) == 0 && nghttp2_session_want_write(session.handle) == 0 }

    /// Queues a response; no body means the HEADERS frame ends the stream.
    func submitResponse(streamId: Int32, status: Int, headers: [(name: String, value: String)], body: [UInt8]) throws {
        let result = HeaderBlock(status: status, headers: headers).withNameValuePairs { list -> Int32 in
            guard !body.isEmpty else { return nghttp2_submit_response(session.handle, streamId, list.baseAddress, list.count, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(), read_callback: Callbacks.readBody)
            return nghttp2_submit_response(session.handle, streamId, list.baseAddress, list.count, &provider)
        }
        guard result == 0 else { throw NGHTTP2Error(operation: "nghttp2_submit_response", code: Int(result)) }
        if !body.isEmpty { outgoingBodies[streamId] = (body, 0) }
    }

    /// Queues GOAWAY (NO_ERROR): streams above `lastStreamId` are refused and the client must retry them.
    func submitGoAway(lastStreamId: Int32) throws {
        let result = nghttp2_submit_goaway(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamId, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        guard result == 0 else { throw NGHTTP2Error(operation: "nghttp2_submit_goaway", code: Int(result)) }
    }

    /// Queues RST_STREAM for `streamId` with `reason`'s error code.
    func reset(streamId: Int32, _ reason: ResetReason) throws {
        let result = nghttp2_submit_rst_stream(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamId, reason.errorCode)
        guard result == 0 else { throw NGHTTP2Error(operation: "nghttp2_submit_rst_stream", code: Int(result)) }
    }

    /// Queues a SETTINGS frame announcing `maxConcurrentStreams`.
    func submitSettings(maxConcurrentStreams: Int) throws {
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(clamping: maxConcurrentStreams))
        let result = nghttp2_submit_settings(session.handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
        guard result == 0 else { throw NGHTTP2Error(operation: "nghttp2_submit_settings", code: Int(result)) }
    }

    // MARK: - Callback bodies (called by nghttp2 on the owning thread)

    fileprivate func beginRequest(streamId: Int32) {
        incoming[streamId] = FakeHTTP2Request(method: "", path: "", headers: [], body: [])
        events.append(.opened(streamId: streamId))
    }

    fileprivate func header(streamId: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard incoming[streamId] != nil else { return }
        let valueText = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(":method".utf8) { incoming[streamId]!.method = valueText }
            if name.elementsEqual(":path".utf8) { incoming[streamId]!.path = valueText }
        } else {
            incoming[streamId]!.headers.append((String(decoding: name, as: UTF8.self), valueText))
        }
    }

    fileprivate func data(streamId: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let captured = incoming[streamId]?.body.count else { return }
        incoming[streamId]!.body += bytes.prefix(max(0, Self.bodyCaptureLimit - captured))
    }

    fileprivate func endOfRequest(streamId: Int32) {
        guard let request = incoming.removeValue(forKey: streamId) else { return }
        events.append(.request(streamId: streamId, request))
    }

    fileprivate func closed(streamId: Int32) {
        incoming[streamId] = nil
        outgoingBodies[streamId] = nil
        events.append(.closed(streamId: streamId))
    }

    fileprivate func readBody(streamId: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, done: Bool) {
        guard let (bytes, offset) = outgoingBodies[streamId] else { return (0, true) }
        let count = min(buffer.count, bytes.count - offset)
        _ = buffer.initialize(fromContentsOf: bytes[offset..<(offset + count)])
        let done = offset + count == bytes.count
        outgoingBodies[streamId] = done ? nil : (bytes, offset + count)
        return (count, done)
    }

    /// The server's nghttp2 callbacks; they capture nothing and find their session through
    /// nghttp2's `user_data`.
    private enum Callbacks {
        static func make() throws(NGHTTP2Error) -> NGHTTP2Callbacks {
            try NGHTTP2Callbacks { table in
                nghttp2_session_callbacks_set_on_begin_headers_callback(table, beginHeaders)
                nghttp2_session_callbacks_set_on_header_callback(table, header)
                nghttp2_session_callbacks_set_on_data_chunk_recv_callback(table, dataChunk)
                nghttp2_session_callbacks_set_on_frame_recv_callback(table, frameReceived)
                nghttp2_session_callbacks_set_on_stream_close_callback(table, streamClosed)
            }
        }

        private static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2ServerSession {
            Unmanaged<HTTP2ServerSession>.fromOpaque(userData!).takeUnretainedValue()
        }

        private static func isRequestHeaders(_ frame: UnsafePointer<nghttp2_frame>?) -> Bool {
            guard let frame else { return false }
            return frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
        }

        static let beginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
            if isRequestHeaders(frame), let frame { owner(userData).beginRequest(streamId: frame.pointee.hd.stream_id) }
            return 0
        }

        static let header: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
            guard isRequestHeaders(frame), let frame else { return 0 }
            owner(userData).header(
                streamId: frame.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }

        static let dataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamId, data, length, userData in
            owner(userData).data(streamId: streamId, bytes: UnsafeBufferPointer(start: data, count: length))
            return 0
        }

        static let frameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
            guard let frame else { return 0 }
            let type = frame.pointee.hd.type
            let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endsStream, type == UInt8(NGHTTP2_DATA.rawValue) || type == UInt8(NGHTTP2_HEADERS.rawValue) {
                owner(userData).endOfRequest(streamId: frame.pointee.hd.stream_id)
            }
            return 0
        }

        static let streamClosed: nghttp2_on_stream_close_callback = { _, streamId, _, userData in
            owner(userData).closed(streamId: streamId)
            return 0
        }

        static let readBody: nghttp2_data_source_read_callback = { _, streamId, buffer, length, flags, _, userData in
            let (count, done) = owner(userData).readBody(streamId: streamId, into: UnsafeMutableBufferPointer(start: buffer, count: length))
            if done { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
    }
}

extension NGHTTP2Session {
    /// A server session calling `callbacks`; its owner sets the user data once it exists.
    convenience init(server callbacks: NGHTTP2Callbacks) throws(NGHTTP2Error) {
        var session: OpaquePointer?
        let status = nghttp2_session_server_new(&session, callbacks.handle, nil)
        guard status == 0, let session else { throw NGHTTP2Error(operation: "nghttp2_session_server_new", code: Int(status)) }
        self.init(owning: session)
    }
}
