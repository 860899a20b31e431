internal import COpenSSL
import Glibc
import PushgateHTTP

extension TLSConnection {
    /// Wraps an accepted socket (see ``TCPListener/accept()``) for a server handshake. Takes ownership of `acceptedSocket`.
    public convenience init(acceptedSocket: Int32, context: TLSContext) throws {
        guard context.role == .server else {
            close(acceptedSocket)
            throw TLSError(.configuration, operation: "accept", detail: "a client context cannot accept")
        }
        do {
            try self.init(fileDescriptor: acceptedSocket, context: context, tcpConnecting: false, peer: "client")
        } catch {
            close(acceptedSocket)
            throw error
        }
        SSL_set_accept_state(ssl)
    }
}
