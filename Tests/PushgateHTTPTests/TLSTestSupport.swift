import Glibc
import PushgateHTTP
import PushgateTesting

/// A loopback TLS server socket plus a certificate, for driving handshakes in tests without threads.
final class TLSTestServer {
    let listener: TCPListener
    let certificate: SelfSignedCertificate
    let context: TLSContext

    init(alpn: [String] = ["h2"], certificate: SelfSignedCertificate? = nil) throws {
        self.certificate = try certificate ?? SelfSignedCertificate.generate()
        context = try TLSContext.server(certificatePEM: self.certificate.certificatePEM,
                                        privateKeyPEM: self.certificate.privateKeyPEM, alpn: alpn)
        listener = try TCPListener()
    }

    var address: SocketAddress { SocketAddress(ipLiteral: "127.0.0.1", port: listener.port)! }

    /// Writes the certificate to a temporary PEM file a client can load as its extra CA file.
    func writeCAFile() throws -> TemporaryFile {
        try TemporaryFile(contents: certificate.certificatePEM)
    }
}

/// A file deleted when the object goes away.
final class TemporaryFile: Sendable {
    let path: String

    init(contents: String) throws {
        var template = Array("/tmp/pushgate-test-XXXXXX.pem".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else { throw TLSError(.configuration, operation: "mkstemps", detail: "\(errno)") }
        let bytes = Array(contents.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    deinit { unlink(path) }
}

/// Outcome of driving a client and a server handshake against each other.
struct HandshakeResult {
    var client: Result<TLSConnection, TLSError>?
    var server: Result<TLSConnection, TLSError>?
}

/// Drives `client` and the next connection accepted by `server` until both handshakes end,
/// waiting only in poll(2) on the sockets (at most `limitMilliseconds` in total).
func driveHandshakes(client: TLSConnection, server: TLSTestServer, limitMilliseconds: Int32 = 5_000) throws -> HandshakeResult {
    var result = HandshakeResult()
    var clientSide: TLSConnection? = client
    var serverSide: TLSConnection?
    var clientEvents = Int16(POLLOUT)
    var serverEvents = Int16(POLLIN)
    var waited: Int32 = 0

    func step(_ connection: TLSConnection, events: inout Int16) -> Result<TLSConnection, TLSError>? {
        do {
            switch try connection.handshake() {
            case .complete: return .success(connection)
            case .wantRead: events = Int16(POLLIN)
            case .wantWrite: events = Int16(POLLOUT)
            }
            return nil
        } catch let error as TLSError {
            return .failure(error)
        } catch {
            return .failure(TLSError(.handshakeFailed, operation: "test", detail: "\(error)"))
        }
    }

    while (result.client == nil || result.server == nil) && waited < limitMilliseconds {
        if serverSide == nil, result.server == nil, let fd = try server.listener.accept() {
            serverSide = try TLSConnection(acceptedSocket: fd, context: server.context)
        }
        if let connection = clientSide, result.client == nil, let done = step(connection, events: &clientEvents) {
            result.client = done
            // A failed side hangs up so the other sees the end instead of waiting.
            if case .failure = done {
                _ = shutdown(connection.fileDescriptor, Int32(SHUT_RDWR))
                clientSide = nil
            }
        }
        if let connection = serverSide, result.server == nil, let done = step(connection, events: &serverEvents) {
            result.server = done
            if case .failure = done {
                _ = shutdown(connection.fileDescriptor, Int32(SHUT_RDWR))
                serverSide = nil
            }
        }
        var descriptors: [pollfd] = [pollfd(fd: server.listener.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        if let clientSide, result.client == nil { descriptors.append(pollfd(fd: clientSide.fileDescriptor, events: clientEvents, revents: 0)) }
        if let serverSide, result.server == nil { descriptors.append(pollfd(fd: serverSide.fileDescriptor, events: serverEvents, revents: 0)) }
        _ = poll(&descriptors, nfds_t(descriptors.count), 20)
        waited += 20
    }
    return result
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
