/// Standard-alphabet base64 (RFC 4648 §4), strict and canonical.
public enum Base64 {
    /// Encodes `bytes` with `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.standard.encode(bytes, padded: true)
    }

    /// Decodes canonical standard base64: no whitespace, zero unused bits, correct length.
    /// With `requirePadding: false` the `=` padding may be left out (if present it must be right).
    public static func decode(_ text: String, requirePadding: Bool = true) throws -> [UInt8] {
        try Base64Codec.standard.decode(text, padding: requirePadding ? .required : .optional)
    }
}
