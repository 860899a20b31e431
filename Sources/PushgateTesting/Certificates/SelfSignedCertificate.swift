internal import COpenSSL
import PushgateCore

/// A self-signed P-256 certificate for loopback test servers, valid for `127.0.0.1` and `localhost`.
///
/// A client trusts it by loading ``certificatePEM`` as its extra CA file.
public struct SelfSignedCertificate: Sendable {
    /// The certificate, PEM encoded.
    public let certificatePEM: String
    /// The certificate's private key, PKCS#8 PEM.
    public let privateKeyPEM: String

    /// Generates a new key and certificate valid from one hour before `clock`'s now until one day after.
    public static func generate(clock: any WallClock = SystemClock(), commonName: String = "Pushgate fake server") throws -> SelfSignedCertificate {
        let key = P256PrivateKey()
        let certificate = try X509Handle()
        let now = clock.nowMilliseconds / 1000
        try certificate.setVersion3(serial: Int64.random(in: 1...Int64.max))
        try certificate.setValidity(notBefore: now - 3600, notAfter: now + 86_400)
        try certificate.setSelfIssued(commonName: commonName)
        try certificate.setPublicKey(key)
        try certificate.addExtension(nid: NID_basic_constraints, value: "critical,CA:TRUE")
        try certificate.addExtension(nid: NID_key_usage, value: "critical,digitalSignature,keyCertSign")
        try certificate.addExtension(nid: NID_ext_key_usage, value: "serverAuth")
        try certificate.addExtension(nid: NID_subject_alt_name, value: "IP:127.0.0.1,DNS:localhost")
        try certificate.sign(with: key)
        return SelfSignedCertificate(certificatePEM: try certificate.pem(), privateKeyPEM: try key.pkcs8PEM)
    }
}
