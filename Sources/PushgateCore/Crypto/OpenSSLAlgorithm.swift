internal import COpenSSL

/// An OpenSSL algorithm implementation (`EVP_MD`, `EVP_CIPHER`) fetched once and kept for the
/// life of the process, so hot paths do not repeat the provider lookup.
///
/// `@unchecked Sendable`: a fetched algorithm is never changed after the fetch and is only
/// passed as a `const` argument to calls that each use their own context, which
/// openssl-threads(7) allows from many threads at once.
final class OpenSSLAlgorithm: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Fetches `name` with `fetch`; a missing algorithm means a broken OpenSSL install.
    init(_ name: String, fetch: (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?) {
        guard let pointer = fetch(nil, name, nil) else {
            fatalError("\(CryptoError.openSSL("fetch \(name)")): OpenSSL 3 with the default provider is required")
        }
        self.pointer = pointer
    }
}
