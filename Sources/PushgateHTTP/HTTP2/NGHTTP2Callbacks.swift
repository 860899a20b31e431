import CNGHTTP2

/// An nghttp2 callback table; nghttp2 copies it into each session it creates.
// @unchecked Sendable: filled once in the initialiser, then only read by nghttp2_session_client_new.
final class NGHTTP2Callbacks: @unchecked Sendable {
    let handle: OpaquePointer

    init(configure: (OpaquePointer) -> Void) throws {
        var callbacks: OpaquePointer?
        let status = nghttp2_session_callbacks_new(&callbacks)
        guard status == 0, let callbacks else {
            throw HTTP2ClientError(.protocolError, detail: "nghttp2_session_callbacks_new: \(NGHTTP2Session.message(status))")
        }
        handle = callbacks
        configure(callbacks)
    }

    deinit { nghttp2_session_callbacks_del(handle) }
}
