internal import COpenSSL
import PushgateCore

/// Owns one OpenSSL `X509` certificate: one under construction, or one read back from PEM.
final class X509Handle {
    private let pointer: OpaquePointer

    /// An empty certificate to build.
    init() throws {
        guard let certificate = X509_new() else { throw CertificateError(operation: "X509_new") }
        pointer = certificate
    }

    /// The first certificate in `pem`.
    init(pem: String) throws {
        let bio = try MemoryBIO(contents: pem)
        guard let certificate = bio.withPointer({ PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw CertificateError(operation: "PEM_read_bio_X509")
        }
        pointer = certificate
    }

    deinit { X509_free(pointer) }

    /// Makes the certificate X.509 v3 with the given serial number.
    func setVersion3(serial: Int64) throws {
        guard X509_set_version(pointer, Int(X509_VERSION_3)) == 1 else { throw CertificateError(operation: "X509_set_version") }
        guard ASN1_INTEGER_set_int64(X509_get_serialNumber(pointer), serial) == 1 else {
            throw CertificateError(operation: "ASN1_INTEGER_set_int64")
        }
    }

    /// Sets notBefore / notAfter, in seconds since the epoch.
    func setValidity(notBefore: Int64, notAfter: Int64) throws {
        guard ASN1_TIME_set(X509_getm_notBefore(pointer), time_t(notBefore)) != nil else {
            throw CertificateError(operation: "ASN1_TIME_set(notBefore)")
        }
        guard ASN1_TIME_set(X509_getm_notAfter(pointer), time_t(notAfter)) != nil else {
            throw CertificateError(operation: "ASN1_TIME_set(notAfter)")
        }
    }

    /// Sets subject and issuer to the same common name (self-signed).
    func setSelfIssued(commonName: String) throws {
        guard let name = X509_get_subject_name(pointer) else { throw CertificateError(operation: "X509_get_subject_name") }
        let added = Array(commonName.utf8).withUnsafeBufferPointer {
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, $0.baseAddress, Int32($0.count), -1, 0)
        }
        guard added == 1 else { throw CertificateError(operation: "X509_NAME_add_entry_by_txt(CN)") }
        guard X509_set_issuer_name(pointer, name) == 1 else { throw CertificateError(operation: "X509_set_issuer_name") }
    }

    /// Sets the certificate's public key from `key`.
    func setPublicKey(_ key: P256PrivateKey) throws {
        guard key.withEVPKey({ X509_set_pubkey(pointer, $0) }) == 1 else { throw CertificateError(operation: "X509_set_pubkey") }
    }

    /// Adds a v3 extension written in OpenSSL's configuration syntax (e.g. `IP:127.0.0.1`).
    func addExtension(nid: Int32, value: String) throws {
        var context = X509V3_CTX()
        pg_x509_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, pointer, pointer, nil, nil, 0)
        let extensionObject = try ExtensionHandle(context: &context, nid: nid, value: value)
        guard extensionObject.withPointer({ X509_add_ext(pointer, $0, -1) }) == 1 else {
            throw CertificateError(operation: "X509_add_ext(\(value))")
        }
    }

    /// Signs the certificate with `key` over SHA-256.
    func sign(with key: P256PrivateKey) throws {
        guard key.withEVPKey({ X509_sign(pointer, $0, EVP_sha256()) }) > 0 else { throw CertificateError(operation: "X509_sign") }
    }

    /// Whether notAfter is at or before `seconds` since the epoch (or cannot be compared).
    func expires(before seconds: Int64) -> Bool {
        var limit = time_t(seconds)
        return X509_cmp_time(X509_get0_notAfter(pointer), &limit) <= 0
    }

    /// Whether the certificate's public key is the public half of `key`.
    func isCertifying(_ key: P256PrivateKey) -> Bool {
        defer { ERR_clear_error() }  // a mismatch leaves its reason on the queue
        return key.withEVPKey { X509_check_private_key(pointer, $0) } == 1
    }

    /// The certificate as PEM.
    func pem() throws -> String {
        let bio = try MemoryBIO()
        guard bio.withPointer({ PEM_write_bio_X509($0, pointer) }) == 1 else { throw CertificateError(operation: "PEM_write_bio_X509") }
        return try bio.contents()
    }

    /// Owns one `X509_EXTENSION` until it has been copied into the certificate.
    private final class ExtensionHandle {
        private let pointer: OpaquePointer

        init(context: inout X509V3_CTX, nid: Int32, value: String) throws {
            guard let created = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw CertificateError(operation: "X509V3_EXT_conf_nid(\(value))")
            }
            pointer = created
        }

        deinit { X509_EXTENSION_free(pointer) }

        func withPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }
    }
}
