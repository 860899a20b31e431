internal import COpenSSL
import PushgateCore
import Testing
@testable import PushgateTesting
import PushgateTestSupport

@Suite(.hangLimit(.minutes(1))) struct SelfSignedCertificateTests {
    /// Parses PEM text with OpenSSL and hands the object to `body`, freeing it afterwards.
    private func withCertificate<T>(_ pem: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        let bio = try #require(BIO_new(BIO_s_mem()))
        defer { BIO_free(bio) }
        #expect(BIO_write(bio, pem, Int32(pem.utf8.count)) == Int32(pem.utf8.count))
        let certificate = try #require(PEM_read_bio_X509(bio, nil, nil, nil))
        defer { X509_free(certificate) }
        return try body(certificate)
    }

    @Test func certificateCoversLoopbackNamesAndIsSelfSigned() throws {
        let generated = try SelfSignedCertificate.generate()
        #expect(generated.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(generated.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        try withCertificate(generated.certificatePEM) { certificate in
            #expect(X509_check_ip_asc(certificate, "127.0.0.1", 0) == 1)
            #expect(X509_check_host(certificate, "localhost", 9, 0, nil) == 1)
            #expect(X509_check_host(certificate, "example.com", 11, 0, nil) == 0)
            let publicKey = try #require(X509_get0_pubkey(certificate))
            #expect(X509_verify(certificate, publicKey) == 1)
            #expect(EVP_PKEY_get_base_id(publicKey) == EVP_PKEY_EC)
            #expect(EVP_PKEY_get_bits(publicKey) == 256)
        }
    }

    @Test func validityRunsFromAnHourBeforeToADayAfterTheClock() throws {
        let clock = ManualClock(milliseconds: 1_764_669_600_000)
        let generated = try SelfSignedCertificate.generate(clock: clock)
        try withCertificate(generated.certificatePEM) { certificate in
            var before: time_t = 1_764_669_600 - 3600 - 1
            var after: time_t = 1_764_669_600 - 3600 + 1
            #expect(X509_cmp_time(X509_get0_notBefore(certificate), &before) > 0)
            #expect(X509_cmp_time(X509_get0_notBefore(certificate), &after) < 0)
            before = 1_764_669_600 + 86_400 - 1
            after = 1_764_669_600 + 86_400 + 1
            #expect(X509_cmp_time(X509_get0_notAfter(certificate), &before) > 0)
            #expect(X509_cmp_time(X509_get0_notAfter(certificate), &after) < 0)
        }
    }

    @Test func eachCallMakesANewKey() throws {
        let first = try SelfSignedCertificate.generate()
        let second = try SelfSignedCertificate.generate()
        #expect(first.privateKeyPEM != second.privateKeyPEM)
    }
}
