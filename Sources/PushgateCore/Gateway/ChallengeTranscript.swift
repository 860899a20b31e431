/// The ten fields a gateway binds into a host challenge, and their byte encoding.
///
/// - Important: protocol/gateway.md §2.3 — each field is `u32be(len(name)) ‖ name ‖ u32be(len(value)) ‖ value`,
///   always in this order; the fixed part is 347 bytes.
public struct ChallengeTranscript: Sendable, Equatable {
    /// Field 1's value.
    public static let protocolName = "orca-push-host-proof/v1"
    /// Field 2's value, one byte.
    public static let version: UInt8 = 0x01
    /// The field names in the order the gateway writes them.
    public static let fieldNames = [
        "protocol", "version", "gatewayOrigin", "gatewayEphemeralPublicKey", "challengeNonce",
        "challengeId", "issuedAt", "expiresAt", "hostFingerprint", "hostPublicKey",
    ]

    public var gatewayOrigin: String
    public var gatewayEphemeralPublicKey: [UInt8]
    public var challengeNonce: [UInt8]
    public var challengeId: String
    /// Milliseconds since the epoch.
    public var issuedAt: Int64
    /// Milliseconds since the epoch.
    public var expiresAt: Int64
    public var hostFingerprint: String
    public var hostPublicKey: [UInt8]

    public init(gatewayOrigin: String, gatewayEphemeralPublicKey: [UInt8], challengeNonce: [UInt8], challengeId: String,
                issuedAt: Int64, expiresAt: Int64, hostFingerprint: String, hostPublicKey: [UInt8]) {
        self.gatewayOrigin = gatewayOrigin
        self.gatewayEphemeralPublicKey = gatewayEphemeralPublicKey
        self.challengeNonce = challengeNonce
        self.challengeId = challengeId
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.hostFingerprint = hostFingerprint
        self.hostPublicKey = hostPublicKey
    }

    /// The encoded transcript: `347 + len(origin) + len(challengeId)` bytes.
    public var bytes: [UInt8] {
        let values: [[UInt8]] = [
            Array(Self.protocolName.utf8), [Self.version], Array(gatewayOrigin.utf8), gatewayEphemeralPublicKey,
            challengeNonce, Array(challengeId.utf8), Self.u64(issuedAt), Self.u64(expiresAt),
            Array(hostFingerprint.utf8), hostPublicKey,
        ]
        var out: [UInt8] = []
        out.reserveCapacity(347 + gatewayOrigin.utf8.count + challengeId.utf8.count)
        for (name, value) in zip(Self.fieldNames, values) {
            out += Self.u32(name.utf8.count) + Array(name.utf8) + Self.u32(value.count) + value
        }
        return out
    }

    /// Splits an encoded transcript into its fields, in order. `nil` when a length runs past
    /// the end, bytes are left over, or a name repeats (protocol/gateway.md §2.9 check 7).
    public static func fields(of bytes: [UInt8]) -> [(name: String, value: [UInt8])]? {
        var fields: [(name: String, value: [UInt8])] = []
        var names = Set<String>()
        var offset = 0
        func take() -> [UInt8]? {
            guard bytes.count - offset >= 4 else { return nil }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }
        while offset < bytes.count {
            guard let name = take(), let value = take() else { return nil }
            let text = String(decoding: name, as: UTF8.self)
            guard names.insert(text).inserted else { return nil }
            fields.append((text, value))
        }
        return fields
    }

    static func u32(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: UInt32(value) >> (24 - 8 * UInt32($0))) }
    }

    static func u64(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * UInt64($0))) }
    }
}
