import PushgateCore
import PushgateHTTP

/// Reads an APNs answer: the outcome, or that the provider token expired.
enum APNsResponseClassifier {
    enum Verdict: Equatable {
        case outcome(APNsOutcome)
        /// 403 `ExpiredProviderToken`: renew the token and send once more.
        case providerTokenExpired
    }

    static let expiredProviderToken = "ExpiredProviderToken"
    /// Reasons that mean the token is gone for good.
    static let deadReasons: Set<String> = ["BadDeviceToken", "Unregistered", "DeviceTokenNotForTopic"]

    /// - Important: dead = 410 or a dead reason; every other failure is transient (protocol/signed-relay.md §7).
    static func classify(_ response: HTTP2Response) -> Verdict {
        if response.status == 200 { return .outcome(.delivered) }
        let reason = self.reason(in: response.body)
        if response.status == 403 && reason == expiredProviderToken { return .providerTokenExpired }
        if response.status == 410 { return .outcome(.dead(reason: reason ?? "Unregistered")) }
        if let reason, deadReasons.contains(reason) { return .outcome(.dead(reason: reason)) }
        return .outcome(.transient(reason: reason ?? "HTTP \(response.status)",
                                   failure: .of(status: response.status, headers: response.headers)))
    }

    /// A failure before any answer (timeout, connection trouble) never condemns the token.
    static func classify(_ error: any Error) -> APNsOutcome {
        let reason = (error as? HTTP2ClientError)?.kind.name ?? "transport error"
        return .transient(reason: reason, failure: .of(error))
    }

    /// The `reason` string of an APNs error body (`{"reason":"…"}`), if it has one.
    static func reason(in body: [UInt8]) -> String? {
        guard !body.isEmpty, let value = try? JSONValue.parse(body), let reason = value["reason"]?.stringValue,
              !reason.isEmpty, reason.utf8.count <= 64, reason.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return reason
    }
}
