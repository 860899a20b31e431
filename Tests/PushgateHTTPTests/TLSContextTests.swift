import PushgateHTTP
import PushgateTesting
import Testing

@Suite("TLS contexts")
struct TLSContextTests {
    @Test("a missing extra CA file is a configuration error naming the file")
    func missingCAFile() {
        #expect {
            _ = try TLSContext.client(extraCAFile: "/nonexistent/ca.pem", alpn: ["h2"])
        } throws: { error in
            (error as? TLSError)?.kind == .configuration && "\(error)".contains("/nonexistent/ca.pem")
        }
    }

    @Test("a server certificate that is not PEM is a configuration error")
    func badCertificate() throws {
        let certificate = try SelfSignedCertificate.generate()
        #expect(throws: TLSError.self) {
            _ = try TLSContext.server(certificatePEM: "not a certificate", privateKeyPEM: certificate.privateKeyPEM, alpn: ["h2"])
        }
    }

    @Test("a private key that does not match the certificate is refused")
    func mismatchedKey() throws {
        let first = try SelfSignedCertificate.generate()
        let second = try SelfSignedCertificate.generate()
        #expect(throws: TLSError.self) {
            _ = try TLSContext.server(certificatePEM: first.certificatePEM, privateKeyPEM: second.privateKeyPEM, alpn: ["h2"])
        }
    }

    @Test("ALPN names must be 1 to 255 bytes", arguments: ["", String(repeating: "x", count: 256)])
    func alpnNameLength(name: String) {
        #expect(throws: TLSError.self) { _ = try TLSContext.client(extraCAFile: nil, alpn: [name]) }
    }

    @Test("a client context keeps its ALPN list in order")
    func alpnList() throws {
        let context = try TLSContext.client(extraCAFile: nil, alpn: ["h2", "http/1.1"])
        #expect(context.alpnProtocols == ["h2", "http/1.1"])
        #expect(context.role == .client)
    }
}
