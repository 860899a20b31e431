/// The iOS collapse id of an encrypted push: `<type>-<sessionId>`.
///
/// - Important: hapi-path.md §8 (collapse id) — at most 64 UTF-8 bytes, cut by dropping whole
///   Unicode scalars from the end, never inside a code point; an empty result is omitted.
enum HapiCollapseId {
    /// The longest collapse id, in UTF-8 bytes.
    static let maxBytes = 64

    static func make(type: String, sessionId: String) -> String? {
        truncate(type + "-" + sessionId)
    }

    /// `text` cut to at most ``maxBytes`` UTF-8 bytes at a scalar boundary; nil when empty.
    static func truncate(_ text: String) -> String? {
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > maxBytes { break }
            scalars.append(scalar)
        }
        return scalars.isEmpty ? nil : String(scalars)
    }
}
