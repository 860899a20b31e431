import Glibc
import PushgateHTTP
import PushgateTesting
import Testing
import PushgateTestSupport

@Suite("TLS connections over loopback", .hangLimit(.minutes(1)))
struct TLSConnectionTests {
    @Test("a trusted certificate and h2 on both sides: handshake completes, bytes flow both ways")
    func handshakeAndEcho() throws {
        let server = try TLSTestServer()
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: ["h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: "127.0.0.1", context: context)
        let result = try driveHandshakes(client: client, server: server)
        let clientSide = try #require(try result.client?.get())
        let serverSide = try #require(try result.server?.get())
        #expect(clientSide.negotiatedProtocol == "h2")
        #expect(serverSide.negotiatedProtocol == "h2")

        #expect(try write(Array("ping from client".utf8), to: clientSide) == 16)
        #expect(try readAll(16, from: serverSide) == Array("ping from client".utf8))
        #expect(try write(Array("pong".utf8), to: serverSide) == 4)
        #expect(try readAll(4, from: clientSide) == Array("pong".utf8))
    }

    @Test("a DNS server name is sent as SNI and checked against the certificate")
    func dnsServerName() throws {
        let server = try TLSTestServer()
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: ["h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: "localhost", context: context)
        let result = try driveHandshakes(client: client, server: server)
        #expect(result.client?.failure == nil)
        #expect(result.server?.failure == nil)
    }

    @Test("a certificate from an unknown CA fails with certificateNotTrusted")
    func untrustedCertificate() throws {
        let server = try TLSTestServer()
        let context = try TLSContext.client(extraCAFile: nil, alpn: ["h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: "127.0.0.1", context: context)
        let result = try driveHandshakes(client: client, server: server)
        let error = try #require(result.client?.failure)
        #expect(error.kind == .certificateNotTrusted)
        #expect(error.detail.contains("self-signed") || error.detail.contains("self signed"))
    }

    @Test("a trusted certificate for other names fails with hostnameMismatch", arguments: ["example.com", "127.0.0.2"])
    func hostnameMismatch(serverName: String) throws {
        let server = try TLSTestServer()
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: ["h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: serverName, context: context)
        let result = try driveHandshakes(client: client, server: server)
        #expect(result.client?.failure?.kind == .hostnameMismatch)
    }

    @Test("a server that only speaks http/1.1 refuses h2: alpnRefused on both sides")
    func serverWithoutH2() throws {
        let server = try TLSTestServer(alpn: ["http/1.1"])
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: ["h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: "127.0.0.1", context: context)
        let result = try driveHandshakes(client: client, server: server)
        #expect(result.client?.failure?.kind == .alpnRefused)
        #expect(result.server?.failure?.kind == .alpnRefused)
    }

    @Test("a server without ALPN: the client refuses the connection with alpnRefused")
    func serverWithoutALPN() throws {
        let server = try TLSTestServer(alpn: [])
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: ["h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: "127.0.0.1", context: context)
        let result = try driveHandshakes(client: client, server: server)
        let error = try #require(result.client?.failure)
        #expect(error.kind == .alpnRefused)
        #expect(error.detail.contains("h2"))
    }

    @Test("a client offering no ALPN is refused by an h2 server")
    func clientWithoutALPN() throws {
        let server = try TLSTestServer()
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: [])
        let client = try TLSConnection.connect(to: server.address, serverName: "127.0.0.1", context: context)
        let result = try driveHandshakes(client: client, server: server)
        #expect(result.server?.failure?.kind == .alpnRefused)
    }

    @Test("the server picks its own first choice among the client's offers")
    func serverPreference() throws {
        let server = try TLSTestServer(alpn: ["h2", "http/1.1"])
        let caFile = try server.writeCAFile()
        let context = try TLSContext.client(extraCAFile: caFile.path, alpn: ["http/1.1", "h2"])
        let client = try TLSConnection.connect(to: server.address, serverName: "127.0.0.1", context: context)
        let result = try driveHandshakes(client: client, server: server)
        #expect(try result.client?.get().negotiatedProtocol == "h2")
    }

    @Test("nothing listening: the handshake reports connectFailed")
    func connectionRefused() throws {
        let port = try TCPListener().port  // bound, then closed at once: nothing listens there now
        let context = try TLSContext.client(extraCAFile: nil, alpn: ["h2"])
        let client = try TLSConnection.connect(to: SocketAddress(ipLiteral: "127.0.0.1", port: port)!, serverName: "127.0.0.1", context: context)
        var error: TLSError?
        for _ in 0..<250 where error == nil {
            do {
                if try client.handshake() == .wantWrite {
                    var descriptor = pollfd(fd: client.fileDescriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 20)
                }
            } catch let failure as TLSError {
                error = failure
            }
        }
        #expect(error?.kind == .connectFailed)
    }

    private func write(_ bytes: [UInt8], to connection: TLSConnection) throws -> Int {
        var written = 0
        for _ in 0..<100 where written < bytes.count {
            if case .transferred(let count) = try connection.write(bytes[written...]) { written += count } else { waitReadable(connection, events: POLLOUT) }
        }
        return written
    }

    private func readAll(_ count: Int, from connection: TLSConnection) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        for _ in 0..<100 where received.count < count {
            switch try connection.read(into: &buffer) {
            case .transferred(let n): received += buffer[0..<n]
            case .wantRead, .wantWrite: waitReadable(connection, events: POLLIN)
            case .closed: return received
            }
        }
        return received
    }

    private func waitReadable(_ connection: TLSConnection, events: Int32) {
        var descriptor = pollfd(fd: connection.fileDescriptor, events: Int16(events), revents: 0)
        _ = poll(&descriptor, 1, 50)
    }
}
