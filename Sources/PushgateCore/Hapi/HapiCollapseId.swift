/// The iOS collapse id of an encrypted notification: `<type>-<sessionId>`, at most 64 UTF-8
/// bytes, cut only between Unicode scalars.
///
/// - Important: protocol/hapi-push.md §8 "Collapse id" — the host truncates, the relay truncates again,
///   the direct APNs client uses the same function; an empty result is omitted.
public enum HapiCollapseId {
    /// The longest collapse id APNs accepts, in UTF-8 bytes.
    public static let maxBytes = 64

    /// `type + "-" + sessionId`, truncated.
    public static func make(type: HapiNotificationType, sessionId: String) -> String? {
        truncate(type.rawValue + "-" + sessionId)
    }

    /// `id` cut to at most 64 UTF-8 bytes by dropping whole scalars from the end; `nil` when
    /// nothing is left.
    public static func truncate(_ id: String) -> String? {
        var bytes = 0
        var kept = String.UnicodeScalarView()
        for scalar in id.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > maxBytes { break }
            kept.append(scalar)
        }
        return kept.isEmpty ? nil : String(kept)
    }
}
