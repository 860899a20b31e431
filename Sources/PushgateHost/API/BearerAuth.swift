import PushgateCore
import PushgateHTTP

/// Checks `Authorization: Bearer <accessToken>` on every `/api/*` request, in constant time.
///
/// - Important: protocol/host-api.md §1 — 401 `{"error":"unauthorized"}`.
struct BearerAuth: Sendable {
    let accessToken: [UInt8]

    /// `nil` when the request may proceed, else the 401 answer.
    func check(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.path.hasPrefix("/api/") else { return nil }
        guard let header = request.headers["authorization"], header.count > 7,
              header.prefix(7).lowercased() == "bearer " else { return APIResponse.unauthorized }
        // ConstantTime compares equal-length inputs in constant time; a length mismatch fails at once
        // and tells an attacker only the token's length, which is public (43 chars by default).
        return ConstantTime.equals(Array(header.dropFirst(7).utf8), accessToken) ? nil : APIResponse.unauthorized
    }
}
