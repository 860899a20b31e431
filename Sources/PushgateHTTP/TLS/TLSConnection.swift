internal import COpenSSL
import Glibc
import PushgateCore

/// One TLS connection over a non-blocking TCP socket. Nothing here blocks: operations that cannot
/// finish yet report `wantRead` or `wantWrite`, and the owner polls the descriptor and calls again.
///
/// Not thread-safe: one thread (an event loop) owns a connection.
public final class TLSConnection {
    /// Progress of ``handshake()``.
    public enum HandshakeStatus: Sendable, Equatable { case complete, wantRead, wantWrite }

    /// Result of a read or write.
    public enum IOResult: Sendable, Equatable {
        /// This many bytes were read or written (more than zero).
        case transferred(Int)
        /// Call again once the socket is readable.
        case wantRead
        /// Call again once the socket is writable.
        case wantWrite
        /// The peer closed the connection.
        case closed
    }

    /// The socket; poll it for the readiness the last call asked for. Closed when the connection is freed.
    public let fileDescriptor: Int32
    public let context: TLSContext
    package let ssl: OpaquePointer
    private var tcpConnecting: Bool
    private let peer: String

    /// Takes ownership of `fileDescriptor` once it returns; the server side
    /// (`TLSConnection(acceptedSocket:context:)`) is PushgateTesting's.
    package init(fileDescriptor: Int32, context: TLSContext, tcpConnecting: Bool, peer: String) throws {
        _ = Socket.ignoreBrokenPipe
        ERR_clear_error()
        guard let ssl = SSL_new(context.handle) else {
            throw TLSError(.configuration, operation: "SSL_new", detail: OpenSSLErrorQueue.drain())
        }
        guard SSL_set_fd(ssl, fileDescriptor) == 1 else {
            let detail = OpenSSLErrorQueue.drain()
            SSL_free(ssl)
            throw TLSError(.configuration, operation: "SSL_set_fd", detail: detail)
        }
        self.ssl = ssl
        self.fileDescriptor = fileDescriptor
        self.context = context
        self.tcpConnecting = tcpConnecting
        self.peer = peer
    }

    deinit {
        SSL_free(ssl)
        close(fileDescriptor)
    }

    /// Starts a non-blocking TCP connect to `address` and prepares a client handshake that sends SNI
    /// and verifies the certificate against `serverName` (a DNS name, or an IP literal checked
    /// against the certificate's IP addresses, without SNI).
    public static func connect(to address: SocketAddress, serverName: String, context: TLSContext) throws -> TLSConnection {
        guard context.role == .client else {
            throw TLSError(.configuration, operation: "connect", detail: "a server context cannot start a client handshake")
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        let connection: TLSConnection
        do {
            try Socket.prepare(fd)
            let status = address.withSockAddr { Glibc.connect(fd, $0, $1) }
            if status != 0 && errno != EINPROGRESS {
                throw TLSError(.connectFailed, operation: "connect \(address)", detail: Socket.errnoText(errno))
            }
            connection = try TLSConnection(fileDescriptor: fd, context: context, tcpConnecting: status != 0, peer: "\(address)")
        } catch {
            close(fd)
            throw error
        }
        try connection.configureClient(serverName: serverName)
        SSL_set_connect_state(connection.ssl)
        return connection
    }

    private func configureClient(serverName: String) throws {
        if SocketAddress.isIPLiteral(serverName) {
            // RFC 6066 §3: no SNI for IP literals; the certificate must list the IP instead.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
                throw TLSError(.configuration, operation: "X509_VERIFY_PARAM_set1_ip_asc", detail: OpenSSLErrorQueue.drain())
            }
        } else {
            guard pg_tls_set_server_name(ssl, serverName) == 1, SSL_set1_host(ssl, serverName) == 1 else {
                throw TLSError(.configuration, operation: "set server name \(serverName)", detail: OpenSSLErrorQueue.drain())
            }
        }
    }

    /// Advances the TCP connect and the TLS handshake. On completion, a context with an ALPN list
    /// requires that one of its protocols was negotiated.
    public func handshake() throws -> HandshakeStatus {
        if tcpConnecting {
            guard try tcpConnectFinished() else { return .wantWrite }
            tcpConnecting = false
        }
        ERR_clear_error()
        let status = SSL_do_handshake(ssl)
        if status == 1 {
            if !context.alpnProtocols.isEmpty && negotiatedProtocol == nil {
                throw TLSError(.alpnRefused, operation: "handshake with \(peer)",
                               detail: "the peer selected no application protocol (offered: \(context.alpnProtocols.joined(separator: ", ")))")
            }
            return .complete
        }
        let code = SSL_get_error(ssl, status)
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default: throw handshakeError(code: code)
        }
    }

    private func tcpConnectFinished() throws -> Bool {
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fileDescriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else {
            throw TLSError(.connectFailed, operation: "connect \(peer)", detail: Socket.errnoText(errno))
        }
        guard failure == 0 else {
            throw TLSError(.connectFailed, operation: "connect \(peer)", detail: Socket.errnoText(failure))
        }
        return true
    }

    private func handshakeError(code: Int32) -> TLSError {
        let operation = "handshake with \(peer)"
        if context.role == .client {
            let verification = Int32(SSL_get_verify_result(ssl))
            if verification != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(Int(verification)))
                ERR_clear_error()
                let mismatch = verification == X509_V_ERR_HOSTNAME_MISMATCH || verification == X509_V_ERR_IP_ADDRESS_MISMATCH
                return TLSError(mismatch ? .hostnameMismatch : .certificateNotTrusted, operation: operation, detail: reason)
            }
        }
        if code == SSL_ERROR_SSL {
            let reason = OpenSSLErrorQueue.peekReason()
            let detail = OpenSSLErrorQueue.drain()
            if reason == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL || reason == SSL_R_NO_APPLICATION_PROTOCOL {
                return TLSError(.alpnRefused, operation: operation, detail: detail)
            }
            return TLSError(.handshakeFailed, operation: operation, detail: detail)
        }
        let failure = errno
        let detail = failure == 0 ? "the peer closed the connection" : Socket.errnoText(failure)
        ERR_clear_error()
        return TLSError(.handshakeFailed, operation: operation, detail: detail)
    }

    /// The application protocol both sides agreed on (`h2`), once the handshake completed.
    public var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Reads decrypted bytes into `buffer[0..<n]` (up to `buffer.count`).
    public func read(into buffer: inout [UInt8]) throws -> IOResult {
        guard !buffer.isEmpty else { return .transferred(0) }
        return try buffer.withUnsafeMutableBytes { raw throws in
            try read(into: raw)
        }
    }

    /// Encrypts and writes a prefix of `bytes`; partial writes are normal.
    public func write(_ bytes: ArraySlice<UInt8>) throws -> IOResult {
        guard !bytes.isEmpty else { return .transferred(0) }
        return try bytes.withUnsafeBytes { raw throws in
            try write(raw)
        }
    }

    func read(into raw: UnsafeMutableRawBufferPointer) throws -> IOResult {
        ERR_clear_error()
        var count = 0
        let status = SSL_read_ex(ssl, raw.baseAddress, raw.count, &count)
        if status == 1 { return .transferred(count) }
        return try ioFailure(operation: "SSL_read", code: SSL_get_error(ssl, status))
    }

    func write(_ raw: UnsafeRawBufferPointer) throws -> IOResult {
        ERR_clear_error()
        var count = 0
        let status = SSL_write_ex(ssl, raw.baseAddress, raw.count, &count)
        if status == 1 { return .transferred(count) }
        return try ioFailure(operation: "SSL_write", code: SSL_get_error(ssl, status))
    }

    private func ioFailure(operation: String, code: Int32) throws -> IOResult {
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SSL:
            // A peer that drops TCP without close_notify is an ordinary close for HTTP/2,
            // whose own framing already detects truncation.
            if OpenSSLErrorQueue.peekReason() == SSL_R_UNEXPECTED_EOF_WHILE_READING {
                ERR_clear_error()
                return .closed
            }
            throw TLSError(.io, operation: "\(operation) \(peer)", detail: OpenSSLErrorQueue.drain())
        default:
            let failure = errno
            ERR_clear_error()
            if failure == 0 { return .closed }
            throw TLSError(.io, operation: "\(operation) \(peer)", detail: Socket.errnoText(failure))
        }
    }

    /// Sends close_notify once without waiting for the peer's; the socket closes when the connection is freed.
    public func shutdown() {
        ERR_clear_error()
        SSL_shutdown(ssl)
        ERR_clear_error()
    }
}
