import CNGHTTP2

/// An nghttp2 client session; freed with the object.
final class NGHTTP2Session {
    let handle: OpaquePointer

    /// A client session calling `callbacks` with `userData` (the owner, which must outlive the session).
    init(callbacks: NGHTTP2Callbacks, userData: UnsafeMutableRawPointer) throws {
        var session: OpaquePointer?
        let status = nghttp2_session_client_new(&session, callbacks.handle, userData)
        guard status == 0, let session else {
            throw HTTP2ClientError(.protocolError, detail: "nghttp2_session_client_new: \(NGHTTP2Session.message(status))")
        }
        handle = session
    }

    deinit { nghttp2_session_del(handle) }

    /// nghttp2's text for a library error code.
    static func message(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }
    static func message(_ code: Int) -> String { message(Int32(truncatingIfNeeded: code)) }
}
