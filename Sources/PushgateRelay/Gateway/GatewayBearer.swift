import Foundation

/// The session token of an `Authorization` header.
///
/// - Important: protocol/gateway.md §2.8 — the scheme word `Bearer` in any case, one space, then
///   the token (trimmed); missing or empty → `invalid_token`.
enum GatewayBearer {
    /// Tokens are 43 characters; anything far longer is not worth hashing.
    static let maxLength = 512

    static func token(from header: String?) -> String? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        guard header[..<space].lowercased() == "bearer" else { return nil }
        let token = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= maxLength else { return nil }
        return token
    }
}
