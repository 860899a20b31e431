/// Random (version 4) UUIDs from ``SecureRandom``, in lowercase text.
public enum RandomUUID {
    /// A new UUID such as `3f2b8c1e-6d4a-4b7e-9c21-0a5e7d9f1b34`.
    public static func lowercase() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array(Hex.encode(bytes))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }
}
