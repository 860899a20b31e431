internal import COpenSSL
import PushgateHTTP

/// The server side of TLS, which only the fake providers and the tests serve with.
extension TLSContext {
    /// A server context presenting `certificatePEM` (leaf first, then any chain) with `privateKeyPEM`,
    /// selecting the first of `alpn` that the client offers and refusing the handshake when none is offered.
    /// An empty `alpn` list negotiates no application protocol at all.
    public static func server(certificatePEM: String, privateKeyPEM: String, alpn: [String]) throws -> TLSContext {
        let context = try TLSContext(role: .server, alpn: ALPNProtocolList(alpn))
        let handle = context.handle
        let certificates = try PEMReader.certificates(certificatePEM)
        defer { certificates.forEach { X509_free($0) } }
        guard SSL_CTX_use_certificate(handle, certificates[0]) == 1 else {
            throw TLSError(.configuration, operation: "SSL_CTX_use_certificate", detail: OpenSSLErrorQueue.drain())
        }
        for chainCertificate in certificates.dropFirst() {
            guard pg_tls_ctx_add1_chain_cert(handle, chainCertificate) == 1 else {
                throw TLSError(.configuration, operation: "SSL_CTX_add1_chain_cert", detail: OpenSSLErrorQueue.drain())
            }
        }
        let key = try PEMReader.privateKey(privateKeyPEM)
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(handle, key) == 1, SSL_CTX_check_private_key(handle) == 1 else {
            throw TLSError(.configuration, operation: "SSL_CTX_use_PrivateKey", detail: OpenSSLErrorQueue.drain())
        }
        if !alpn.isEmpty {
            SSL_CTX_set_alpn_select_cb(handle, selectALPN, Unmanaged.passUnretained(context).toOpaque())
        }
        return context
    }
}

/// Server-side ALPN choice. The context outlives every SSL made from it (each TLSConnection
/// holds its TLSContext), so the unretained reference is valid whenever OpenSSL calls.
private let selectALPN: SSL_CTX_alpn_select_cb_func = { _, out, outLength, offered, offeredLength, argument in
    guard let out, let outLength, let offered, let argument else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let context = Unmanaged<TLSContext>.fromOpaque(argument).takeUnretainedValue()
    let list = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
    guard let match = context.alpn.firstMatch(in: list) else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    // Point into the client's list, which OpenSSL keeps alive for the whole handshake.
    out.pointee = offered + match.offset
    outLength.pointee = UInt8(match.count)
    return SSL_TLSEXT_ERR_OK
}

extension ALPNProtocolList {
    /// The offset and length of the first of our names that the peer's wire-form list also holds.
    ///
    /// Our order wins: the server picks its most preferred protocol among those the client offers.
    func firstMatch(in offered: UnsafeBufferPointer<UInt8>) -> (offset: Int, count: Int)? {
        for name in names {
            let wanted = Array(name.utf8)
            var index = 0
            while index < offered.count {
                let length = Int(offered[index])
                let start = index + 1
                guard start + length <= offered.count else { return nil }
                if length == wanted.count && offered[start..<start + length].elementsEqual(wanted) {
                    return (start, length)
                }
                index = start + length
            }
        }
        return nil
    }
}
