import COpenSSL

/// An OpenSSL failure while building a test certificate: the operation and the library's message.
public struct CertificateError: Error, CustomStringConvertible, Sendable {
    /// The OpenSSL call that failed.
    public let operation: String
    /// OpenSSL's error-queue text for the failure (empty when the queue was empty).
    public let libraryMessage: String

    /// Captures and clears OpenSSL's error queue for `operation`.
    init(operation: String) {
        self.operation = operation
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        libraryMessage = messages.joined(separator: "; ")
    }

    public var description: String {
        libraryMessage.isEmpty ? "\(operation) failed" : "\(operation) failed: \(libraryMessage)"
    }
}
