internal import COpenSSL

/// A failed cryptographic operation: what was attempted and why (OpenSSL's message or ours).
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// The operation that failed, e.g. `P-256 sign`.
    public let operation: String
    /// The reason; never contains key material or secret input.
    public let message: String

    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    /// The error for an OpenSSL call that just failed: takes the first (root-cause) entry of
    /// this thread's OpenSSL error queue and clears the rest.
    static func openSSL(_ operation: String) -> CryptoError {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return CryptoError(operation: operation, message: "failed (no OpenSSL error queued)") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return CryptoError(operation: operation, message: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    public var description: String { "\(operation): \(message)" }
}
