internal import COpenSSL

/// A configured OpenSSL `SSL_CTX`: client (system CAs plus an optional extra CA, peer verification
/// always on) or server (certificate, key and an ALPN choice; made only by the test servers,
/// `TLSContext.server` in PushgateTesting).
///
/// - Important: client contexts always verify the peer; there is no bypass (protocol/signed-relay.md §7).
// @unchecked Sendable: the SSL_CTX is fully configured in the initialiser and never changed
// afterwards; OpenSSL allows one configured SSL_CTX to be shared by SSL objects on any thread.
public final class TLSContext: @unchecked Sendable {
    /// Which side of a handshake the context serves.
    public enum Role: Sendable { case client, server }

    public let role: Role
    /// Protocols offered (client, in order) or accepted (server, most preferred first).
    public let alpnProtocols: [String]
    package let alpn: ALPNProtocolList
    package let handle: OpaquePointer

    package init(role: Role, alpn: ALPNProtocolList) throws {
        ERR_clear_error()
        let method = role == .client ? TLS_client_method() : TLS_server_method()
        guard let handle = SSL_CTX_new(method) else {
            throw TLSError(.configuration, operation: "SSL_CTX_new", detail: OpenSSLErrorQueue.drain())
        }
        self.handle = handle
        self.role = role
        self.alpn = alpn
        self.alpnProtocols = alpn.names
        guard pg_tls_ctx_require_tls12(handle) == 1 else {
            throw TLSError(.configuration, operation: "SSL_CTX_set_min_proto_version", detail: OpenSSLErrorQueue.drain())
        }
        pg_tls_ctx_set_safe_options(handle)
        _ = pg_tls_ctx_enable_partial_writes(handle)
    }

    deinit { SSL_CTX_free(handle) }

    /// A client context trusting the system CA store plus `extraCAFile` (PEM), verifying the peer,
    /// and offering `alpn` (a connection fails unless the server selects one of them).
    public static func client(extraCAFile: String?, alpn: [String]) throws -> TLSContext {
        let context = try TLSContext(role: .client, alpn: ALPNProtocolList(alpn))
        let handle = context.handle
        guard SSL_CTX_set_default_verify_paths(handle) == 1 else {
            throw TLSError(.configuration, operation: "SSL_CTX_set_default_verify_paths", detail: OpenSSLErrorQueue.drain())
        }
        if let extraCAFile {
            guard SSL_CTX_load_verify_locations(handle, extraCAFile, nil) == 1 else {
                throw TLSError(.configuration, operation: "load CA file \(extraCAFile)", detail: OpenSSLErrorQueue.drain())
            }
        }
        SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
        if !context.alpn.wire.isEmpty {
            let status = context.alpn.wire.withUnsafeBufferPointer {
                SSL_CTX_set_alpn_protos(handle, $0.baseAddress, UInt32($0.count))
            }
            guard status == 0 else {  // this one call returns 0 on success
                throw TLSError(.configuration, operation: "SSL_CTX_set_alpn_protos", detail: OpenSSLErrorQueue.drain())
            }
        }
        return context
    }
}
