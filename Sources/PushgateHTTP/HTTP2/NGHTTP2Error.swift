import CNGHTTP2

/// An nghttp2 call failed: the operation and the library's message for its error code.
package struct NGHTTP2Error: Error, CustomStringConvertible {
    package let operation: String
    package let code: Int

    package init(operation: String, code: Int) {
        self.operation = operation
        self.code = code
    }

    package var description: String { "\(operation) failed: \(Self.message(code)) (\(code))" }

    /// nghttp2's text for a library error code.
    package static func message(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }
    package static func message(_ code: Int) -> String { message(Int32(truncatingIfNeeded: code)) }
}

extension HTTP2ClientError {
    /// The client's view of a failed nghttp2 call: a protocol error naming the call.
    init(_ error: NGHTTP2Error) {
        self.init(.protocolError, detail: "\(error.operation): \(NGHTTP2Error.message(error.code))")
    }
}
