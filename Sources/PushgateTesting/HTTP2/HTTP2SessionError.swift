import CNGHTTP2

/// An nghttp2 call failed: the operation and the library's message for its error code.
struct HTTP2SessionError: Error, CustomStringConvertible {
    let operation: String
    let code: Int

    var description: String {
        let message = String(cString: nghttp2_strerror(Int32(truncatingIfNeeded: code)))
        return "\(operation) failed: \(message) (\(code))"
    }
}
