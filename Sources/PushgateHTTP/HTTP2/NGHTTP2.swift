internal import CNGHTTP2

/// An nghttp2 session, client (or a test server's); freed with the object.
package final class NGHTTP2Session {
    package let handle: OpaquePointer

    /// A client session calling `callbacks`; its owner sets the user data once it exists.
    init(client callbacks: NGHTTP2Callbacks) throws(NGHTTP2Error) {
        var session: OpaquePointer?
        let status = nghttp2_session_client_new(&session, callbacks.handle, nil)
        guard status == 0, let session else { throw NGHTTP2Error(operation: "nghttp2_session_client_new", code: Int(status)) }
        handle = session
    }

    /// Takes ownership of a session made elsewhere (the server sessions of PushgateTesting).
    package init(owning session: OpaquePointer) {
        handle = session
    }

    deinit { nghttp2_session_del(handle) }
}

/// An nghttp2 callback table, for client and server sessions; nghttp2 copies it into each
/// session it creates.
// @unchecked Sendable: filled once in the initialiser, then only read by nghttp2_session_*_new.
package final class NGHTTP2Callbacks: @unchecked Sendable {
    package let handle: OpaquePointer

    package init(configure: (OpaquePointer) -> Void) throws(NGHTTP2Error) {
        var callbacks: OpaquePointer?
        let status = nghttp2_session_callbacks_new(&callbacks)
        guard status == 0, let callbacks else { throw NGHTTP2Error(operation: "nghttp2_session_callbacks_new", code: Int(status)) }
        handle = callbacks
        configure(callbacks)
    }

    deinit { nghttp2_session_callbacks_del(handle) }
}
