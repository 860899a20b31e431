/// A device's 32-byte AES-256-GCM `pushKey`, as registered on the encrypted path.
///
/// - Important: protocol/hapi-push.md §5 — accepted when it is 43 characters of the standard base64
///   alphabet followed by zero, one or two `=` (unpadded accepted, the unused low bits of
///   the last character ignored, URL-safe `-` `_` refused); stored as ``storedForm``.
public struct HapiPushKey: Sendable, Equatable, CustomStringConvertible {
    /// The key length in bytes.
    public static let byteCount = 32

    let bytes: [UInt8]

    /// Decodes a submitted `pushKey`. The error names the field, never the value.
    public init(base64 text: String) throws(WireFieldError) {
        let invalid = WireFieldError(field: "pushKey", problem: "must be base64 of 32 bytes")
        let utf8 = Array(text.utf8)
        let padding = utf8.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard utf8.count - padding == 43, padding <= 2, let lastValue = Self.sextet(utf8[42]) else { throw invalid }
        // 43 characters carry 258 bits; clear the 2 unused ones so the strict decoder accepts it.
        let last = Self.alphabet[Int(lastValue & 0b11_1100)]
        guard let bytes = try? Base64.decode(String(decoding: utf8[..<42] + [last, UInt8(ascii: "=")], as: UTF8.self)) else {
            throw invalid
        }
        self.bytes = bytes
    }

    /// A key from its raw bytes; `nil` unless exactly 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A fresh random key (what a device creates).
    public static func random() -> HapiPushKey {
        HapiPushKey(unchecked: SecureRandom.bytes(byteCount))
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The padded base64 of the 32 bytes (44 characters, the last `=`): what the host stores.
    public var storedForm: String { Base64.encode(bytes) }

    /// Compares in constant time.
    public static func == (lhs: HapiPushKey, rhs: HapiPushKey) -> Bool { ConstantTime.equals(lhs.bytes, rhs.bytes) }

    /// Never shows the key.
    public var description: String { "HapiPushKey(redacted)" }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static func sextet(_ character: UInt8) -> UInt8? {
        alphabet.firstIndex(of: character).map { UInt8($0) }
    }
}
