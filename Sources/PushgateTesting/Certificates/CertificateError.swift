import PushgateHTTP

/// An OpenSSL failure while building a test certificate: the operation and the library's message.
public struct CertificateError: Error, CustomStringConvertible, Sendable {
    /// The OpenSSL call that failed.
    public let operation: String
    /// OpenSSL's error-queue text for the failure (empty when the queue was empty).
    public let libraryMessage: String

    /// Captures and clears OpenSSL's error queue for `operation`.
    init(operation: String) {
        self.operation = operation
        libraryMessage = OpenSSLErrorQueue.drain(fallback: "")
    }

    public var description: String {
        libraryMessage.isEmpty ? "\(operation) failed" : "\(operation) failed: \(libraryMessage)"
    }
}
