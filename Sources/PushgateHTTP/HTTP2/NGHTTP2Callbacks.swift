import CNGHTTP2

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
