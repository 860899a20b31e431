/// The sealed part of a challenge: a fixed prefix, the transcript's length and bytes, and the secret.
///
/// - Important: protocol/gateway.md §2.4 — `"orca-push-host-challenge/v1" 0x00 ‖ u32be(len) ‖ transcript ‖ secret(32)`.
public enum ChallengePlaintext {
    /// The 28-byte prefix.
    public static let prefix = Array("orca-push-host-challenge/v1".utf8) + [0]
    /// The challenge secret's length.
    public static let secretBytes = 32

    /// The plaintext for `transcript` and `secret`: `len(transcript) + 64` bytes.
    public static func build(transcript: [UInt8], secret: [UInt8]) -> [UInt8] {
        prefix + ChallengeTranscript.u32(transcript.count) + transcript + secret
    }

    /// The transcript and the secret of a plaintext, or `nil` unless it has the prefix, is at
    /// least 64 bytes and its length field accounts for every byte (§2.9 checks 5 and 6).
    public static func split(_ plaintext: [UInt8]) -> (transcript: [UInt8], secret: [UInt8])? {
        guard plaintext.count >= prefix.count + 36, plaintext.starts(with: prefix) else { return nil }
        let length = plaintext[prefix.count..<prefix.count + 4].reduce(0) { $0 << 8 | Int($1) }
        guard prefix.count + 4 + length + secretBytes == plaintext.count else { return nil }
        let start = prefix.count + 4
        return (Array(plaintext[start..<start + length]), Array(plaintext[(start + length)...]))
    }
}
