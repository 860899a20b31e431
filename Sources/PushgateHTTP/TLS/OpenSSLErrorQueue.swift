internal import COpenSSL

/// Reads OpenSSL's thread-local error queue into messages.
package enum OpenSSLErrorQueue {
    /// Empties the queue and joins every entry, or falls back to `fallback` when it is empty.
    package static func drain(fallback: String = "no OpenSSL error reported") -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { ERR_error_string_n(code, $0.baseAddress, $0.count) }
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? fallback : messages.joined(separator: "; ")
    }

    /// The reason code of the oldest queued error, without removing it (0 when empty).
    static func peekReason() -> Int32 {
        ERR_GET_REASON(ERR_peek_error())
    }
}
