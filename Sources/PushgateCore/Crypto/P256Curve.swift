internal import COpenSSL

/// Building and reading P-256 `EVP_PKEY`s: the pieces shared by the public and private key types.
enum P256Curve {
    /// OpenSSL's name for the curve.
    static let groupName = "prime256v1"
    /// Bytes in a coordinate, a scalar, and each half of a P1363 signature.
    static let fieldSize = 32
    /// The group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84,
        0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// A public key from affine coordinates; OpenSSL rejects points not on the curve.
    static func publicKey(x: [UInt8], y: [UInt8], operation: String) throws -> EVPKey {
        try checkCoordinates(x: x, y: y, operation: operation)
        let point = [0x04] + x + y
        return try EVPKey(fromData: "EC", selection: EVPKey.publicSelection, parameters: [
            KeyParameter(name: OSSL_PKEY_PARAM_GROUP_NAME, value: .utf8(groupName)),
            KeyParameter(name: OSSL_PKEY_PARAM_PUB_KEY, value: .octets(point)),
        ], operation: operation)
    }

    /// A key pair from the private scalar `d`; the public point is derived from `d` and must
    /// equal `x`, `y` (a JWK whose halves disagree is rejected).
    static func keyPair(scalar d: [UInt8], x: [UInt8], y: [UInt8], operation: String) throws -> EVPKey {
        try checkCoordinates(x: x, y: y, operation: operation)
        guard d.count == fieldSize else {
            throw CryptoError(operation: operation, message: "private scalar must be \(fieldSize) bytes, got \(d.count)")
        }
        let point = try derivePublicPoint(scalar: d, operation: operation)
        guard point == [0x04] + x + y else {
            throw CryptoError(operation: operation, message: "public coordinates do not match the private scalar")
        }
        return try EVPKey(fromData: "EC", selection: EVPKey.keyPairSelection, parameters: [
            KeyParameter(name: OSSL_PKEY_PARAM_GROUP_NAME, value: .utf8(groupName)),
            KeyParameter(name: OSSL_PKEY_PARAM_PUB_KEY, value: .octets(point)),
            KeyParameter(name: OSSL_PKEY_PARAM_PRIV_KEY, value: .unsignedInteger(bigEndian: d)),
        ], operation: operation)
    }

    /// The uncompressed point `04 ‖ x ‖ y` for scalar `d`, which must lie in [1, n−1].
    private static func derivePublicPoint(scalar d: [UInt8], operation: String) throws -> [UInt8] {
        try OpenSSLCall.withObject(operation, make: { BN_secure_new() }, free: BN_clear_free) { scalar in
            guard BN_bin2bn(d, Int32(d.count), scalar) != nil else { throw CryptoError.openSSL(operation) }
            return try OpenSSLCall.withObject(operation, make: { EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) }, free: EC_GROUP_free) { group in
                guard BN_is_zero(scalar) == 0, BN_cmp(scalar, EC_GROUP_get0_order(group)) < 0 else {
                    throw CryptoError(operation: operation, message: "private scalar out of range")
                }
                return try OpenSSLCall.withObject(operation, make: { EC_POINT_new(group) }, free: EC_POINT_free) { point in
                    try OpenSSLCall.check(EC_POINT_mul(group, point, scalar, nil, nil, nil), operation)
                    var out = [UInt8](repeating: 0, count: 1 + 2 * fieldSize)
                    guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil) == out.count else {
                        throw CryptoError.openSSL(operation)
                    }
                    return out
                }
            }
        }
    }

    /// Throws unless `key` is an EC key on P-256.
    static func checkGroup(of key: EVPKey, operation: String) throws {
        let name = try key.stringParameter(OSSL_PKEY_PARAM_GROUP_NAME, operation: operation)
        guard name == groupName else {
            throw CryptoError(operation: operation, message: "key is on curve \(name), not P-256")
        }
    }

    /// The affine coordinates of `key`'s public point.
    static func coordinates(of key: EVPKey, operation: String) throws -> (x: [UInt8], y: [UInt8]) {
        (try key.integerParameter(OSSL_PKEY_PARAM_EC_PUB_X, width: fieldSize, operation: operation),
         try key.integerParameter(OSSL_PKEY_PARAM_EC_PUB_Y, width: fieldSize, operation: operation))
    }

    private static func checkCoordinates(x: [UInt8], y: [UInt8], operation: String) throws {
        guard x.count == fieldSize, y.count == fieldSize else {
            throw CryptoError(operation: operation, message: "coordinates must be \(fieldSize) bytes each")
        }
    }
}
