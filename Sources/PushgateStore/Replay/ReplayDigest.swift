import PushgateCore

/// A replay key as stored: the first 128 bits of the SHA-256 of its text. A fixed 16 bytes
/// instead of the ~130-byte key, and still collision-free for keys an attacker chooses
/// (2^64 work for a birthday pair).
public struct ReplayDigest: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The digest of a key's text.
    public init(_ key: String) {
        let hash = SHA256.hash(Array(key.utf8))
        self.init(bytes: hash[0 ..< 16])
    }

    /// The digest from its 16 bytes, big-endian halves.
    init(bytes: ArraySlice<UInt8>) {
        precondition(bytes.count == 16)
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0 ..< 8 {
            high = high << 8 | UInt64(bytes[bytes.startIndex + index])
            low = low << 8 | UInt64(bytes[bytes.startIndex + 8 + index])
        }
        self.init(high: high, low: low)
    }

    /// The 16 bytes, big-endian halves.
    var bytes: [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0 ..< 8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// Unpadded base64url of the 16 bytes: the PostgreSQL key column.
    var text: String { Base64URL.encode(bytes) }
}
