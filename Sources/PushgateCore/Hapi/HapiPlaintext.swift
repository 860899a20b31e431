/// The plaintext a host encrypts for one event, chosen once before the per-device seals.
///
/// - Important: protocol/hapi-push.md §4 — the first of full, without summary, minimal whose
///   envelope fits 3200 characters; none fits → nothing is sent. Nothing is ever cut.
public struct HapiPlaintext: Sendable, Equatable {
    /// Which fallback step produced the plaintext.
    public enum Form: String, Sendable, Equatable {
        case full, withoutSummary, minimal
    }

    public let form: Form
    /// The canonical JSON bytes to seal.
    public let bytes: [UInt8]

    /// The first form of `payload` that fits the cap, or `nil` to give up (every targeted
    /// device is then `failed` and keeps its row).
    public static func choose(for payload: HapiPayload) -> HapiPlaintext? {
        var candidates: [(Form, HapiPayload)] = [(.full, payload)]
        if let summary = payload.notifySummary, !summary.isEmpty {
            candidates.append((.withoutSummary, payload.withoutSummary))
        }
        candidates.append((.minimal, payload.minimal))
        for (form, candidate) in candidates {
            let bytes = candidate.canonicalPlaintext
            if HapiEnvelope.fits(plaintextByteCount: bytes.count) { return HapiPlaintext(form: form, bytes: bytes) }
        }
        return nil
    }
}
