internal import COpenSSL
import PushgateHTTP

/// Parses PEM text into OpenSSL objects; the caller frees what it receives.
enum PEMReader {
    /// Every certificate in `pem`, in order (at least one).
    static func certificates(_ pem: String) throws -> [OpaquePointer] {
        let result: Result<[OpaquePointer], TLSError> = withMemoryBIO(pem) { bio in
            var certificates: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(certificate)
            }
            ERR_clear_error()  // the loop ends on a "no start line" error
            guard !certificates.isEmpty else {
                return .failure(TLSError(.configuration, operation: "PEM_read_bio_X509", detail: "no certificate in the PEM text"))
            }
            return .success(certificates)
        }
        return try result.get()
    }

    /// The private key in `pem`.
    static func privateKey(_ pem: String) throws -> OpaquePointer {
        let result: Result<OpaquePointer, TLSError> = withMemoryBIO(pem) { bio in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                return .failure(TLSError(.configuration, operation: "PEM_read_bio_PrivateKey", detail: OpenSSLErrorQueue.drain()))
            }
            return .success(key)
        }
        return try result.get()
    }

    private static func withMemoryBIO<T>(_ pem: String, _ body: (OpaquePointer) -> Result<T, TLSError>) -> Result<T, TLSError> {
        ERR_clear_error()
        let bytes = Array(pem.utf8)
        guard bytes.count < Int32.max else {
            return .failure(TLSError(.configuration, operation: "BIO_new_mem_buf", detail: "PEM text too large"))
        }
        return bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                return .failure(TLSError(.configuration, operation: "BIO_new_mem_buf", detail: OpenSSLErrorQueue.drain()))
            }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}
