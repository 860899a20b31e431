internal import COpenSSL

/// Owns one OpenSSL memory `BIO`, used to collect PEM output or to feed PEM input.
final class MemoryBIO {
    private let pointer: OpaquePointer

    init() throws {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CertificateError(operation: "BIO_new(BIO_s_mem)") }
        pointer = bio
    }

    /// A BIO holding `text`, to read from.
    convenience init(contents text: String) throws {
        try self.init()
        let bytes = Array(text.utf8)
        guard bytes.count < Int32.max, bytes.withUnsafeBytes({ BIO_write(pointer, $0.baseAddress, Int32($0.count)) }) == Int32(bytes.count) else {
            throw CertificateError(operation: "BIO_write")
        }
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
