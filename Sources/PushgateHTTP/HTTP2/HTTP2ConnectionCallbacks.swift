import CNGHTTP2

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

    private static let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, frame, libraryError, userData in
        guard let frame else { return 0 }
        connection(userData).frameNotSent(frame, libraryError: libraryError)
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
