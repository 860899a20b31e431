internal import COpenSSL

/// One OpenSSL key parameter (`OSSL_PARAM`) given as Swift values, e.g. the EC group name.
struct KeyParameter {
    /// The parameter's value and type.
    enum Value {
        case utf8(String)
        case octets([UInt8])
        /// A non-negative integer, big-endian (OpenSSL wants native byte order; converted here).
        case unsignedInteger(bigEndian: [UInt8])
    }

    /// The `OSSL_PKEY_PARAM_*` name.
    let name: String
    let value: Value

    /// Lends `parameters` as an `OSSL_PARAM` array ending in the end marker.
    ///
    /// `OSSL_PARAM`s only point at their names and values, so all of them are first copied into
    /// one buffer that lives, and is wiped and freed, around `body` (a value may be a private key).
    static func withArray<Result>(_ parameters: [KeyParameter], _ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> Result) rethrows -> Result {
        let pieces = parameters.map { parameter -> (name: [UInt8], value: [UInt8]) in
            let name = Array(parameter.name.utf8) + [0]
            switch parameter.value {
            case .utf8(let text): return (name, Array(text.utf8) + [0])
            case .octets(let bytes): return (name, bytes)
            case .unsignedInteger(let bigEndian): return (name, littleEndianHost ? bigEndian.reversed() : bigEndian)
            }
        }
        let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, pieces.reduce(0) { $0 + $1.name.count + $1.value.count }), alignment: 16)
        defer {
            arena.initializeMemory(as: UInt8.self, repeating: 0)
            arena.deallocate()
        }
        var offset = 0
        func place(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
            let start = arena.baseAddress! + offset
            bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            offset += bytes.count
            return start
        }
        var array: [OSSL_PARAM] = zip(parameters, pieces).map { parameter, piece in
            let name = place(piece.name).assumingMemoryBound(to: CChar.self)
            let value = place(piece.value)
            switch parameter.value {
            case .utf8: return OSSL_PARAM_construct_utf8_string(name, value.assumingMemoryBound(to: CChar.self), piece.value.count - 1)
            case .octets: return OSSL_PARAM_construct_octet_string(name, value, piece.value.count)
            case .unsignedInteger: return OSSL_PARAM_construct_BN(name, value.assumingMemoryBound(to: UInt8.self), piece.value.count)
            }
        }
        array.append(OSSL_PARAM_construct_end())
        return try array.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
    }

    private static let littleEndianHost = 1.littleEndian == 1
}
