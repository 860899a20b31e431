import PushgateCore
import PushgateProviders

/// A `POST /v1/push/background` request (**extension**), validated: a silent push telling the
/// app to remove the notifications of `collapseIds`.
///
/// - Important: docs/relay.md "Background" — `tokens` as on `send` (1–100, iOS or Android),
///   `collapseIds` 1–32 strings, distinct as bytes, of 1–64 bytes without CR, LF or NUL, `env` as on `send`;
///   only `ts` and the sorted tokens are signed (`ts.tokens.background`).
struct BackgroundRequest {
    let tokens: [String]
    let collapseIds: [String]
    let environment: APNsEnvironment
    let proof: SignedProof

    init(_ fields: FieldReader, keys: PublicKeyCache) throws(RelayError) {
        tokens = try DeviceToken.list(fields, android: true)
        let values = try fields.relayArray("collapseIds")
        guard (1...APNsPayload.maxDismissedCollapseIds).contains(values.count) else { throw .invalidRequest }
        var collapseIds: [String] = []
        for value in values {
            // Distinct as bytes, as the app and APNs compare them: Swift's == would take "é" and
            // "e\u{301}" for one id.
            guard let id = value.stringValue, APNsPayload.isDismissible(collapseId: id),
                  !collapseIds.contains(where: { $0.utf8.elementsEqual(id.utf8) }) else { throw .invalidRequest }
            collapseIds.append(id)
        }
        self.collapseIds = collapseIds
        environment = try APNsEnvironment.from(fields)
        proof = try SignedProof(fields, keys: keys)
    }

    /// The string the host signed.
    var signedMessage: String { SignedMessage.background(ts: proof.timestampMs, tokens: tokens) }

    /// The ending of the background message (`ts.tokens.` + suffix), read off its builder; a
    /// `send` whose message ends with `.` and it is refused (docs/security.md, M3).
    static let signedSuffix = String(SignedMessage.background(ts: 0, tokens: ["t"]).dropFirst("0.t.".count))
}
