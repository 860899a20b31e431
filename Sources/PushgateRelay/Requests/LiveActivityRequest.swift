import PushgateCore
import PushgateProviders

/// A `POST /v1/push/live-activity` request, validated.
///
/// - Important: protocol/signed-relay.md §5 — `contentState` is strict, items are normalised before the
///   signature is checked; `priority` (5 or 10, default 10) is a Pushgate extension and unsigned.
///   So is a `start` (docs/relay.md "Live Activity"): its `attributesType`, `attributes` and
///   `alert` are required with that event and refused with any other, and not signed.
struct LiveActivityRequest {
    let push: LiveActivityPush
    /// What a `start` carries; nil for `update` and `end`.
    let start: LiveActivityStart?
    let environment: APNsEnvironment
    let priority: Int
    let proof: SignedProof

    init(_ fields: FieldReader, keys: PublicKeyCache) throws(RelayError) {
        guard let push = try? LiveActivityPush(json: .object(fields.object)),
              push.tokens.allSatisfy(DeviceToken.isValid) else { throw .invalidRequest }
        self.push = push
        if push.event == .start {
            guard let start = try? LiveActivityStart(json: .object(fields.object)) else { throw .invalidRequest }
            self.start = start
        } else {
            guard !Self.startMembers.contains(where: fields.has) else { throw .invalidRequest }
            start = nil
        }
        environment = try APNsEnvironment.from(fields)
        let priority = try fields.relay({ try $0.optionalInteger("priority") }) ?? 10
        guard priority == 5 || priority == 10 else { throw .invalidRequest }
        self.priority = Int(priority)
        proof = try SignedProof(fields, keys: keys)
    }

    /// The members only a `start` may carry.
    static let startMembers = ["attributesType", "attributes", "alert"]

    /// The string the host signed.
    var signedMessage: String { SignedMessage.liveActivity(ts: proof.timestampMs, push: push) }
}
