import COpenSSL

/// Owns one OpenSSL memory `BIO`, used to collect PEM output.
final class MemoryBIO {
    private let pointer: OpaquePointer

    init() throws {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CertificateError(operation: "BIO_new(BIO_s_mem)") }
        pointer = bio
    }

    deinit { BIO_free(pointer) }

    /// Lends the raw BIO for the duration of `body`.
    func withPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    /// Everything written so far, as text.
    func contents() throws -> String {
        var data: UnsafeMutablePointer<CChar>?
        let length = pg_x509_bio_mem_data(pointer, &data)
        guard length >= 0, let data else { throw CertificateError(operation: "BIO_get_mem_data") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
