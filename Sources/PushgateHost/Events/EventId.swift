import PushgateCore

/// The id of one hub event: given by the hub (`eventId`) or made by the host. Every
/// content-free alert push of the event carries it in `data`, so a hub, or a test counting
/// what a provider received, can tell the pushes of one event from those of another.
public enum EventId {
    /// The longest id the API accepts; with a 256-byte `sessionId` the push's `data` stays far
    /// below the relay's 2 048 bytes.
    public static let maxBytes = 64

    /// A new id: 16 random bytes in hex.
    public static func make() -> String { Hex.encode(SecureRandom.bytes(16)) }

    /// `text` when it is 1 to ``maxBytes`` bytes of `A-Z a-z 0-9 _ . : -`, else the field error.
    public static func validated(_ text: String) throws(WireFieldError) -> String {
        let allowed = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
        guard allowed, (1...maxBytes).contains(text.utf8.count) else {
            throw WireFieldError(field: "eventId", problem: "must be 1 to \(maxBytes) of A-Z a-z 0-9 _ . : -")
        }
        return text
    }
}
