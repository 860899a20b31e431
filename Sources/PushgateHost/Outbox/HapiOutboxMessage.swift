import PushgateCore
import PushgateProviders

/// What an outbox entry of kind `hapi` holds: the sealed envelope for one device, never the
/// plaintext, with the lane and collapse id it goes out with (docs/host.md, "Outbox").
struct HapiOutboxMessage: Sendable, Equatable {
    /// The encrypted lane of the device's platform; sent again by that lane's route at the time.
    enum Lane: String, Sendable {
        case ios, android

        /// Whether a failure is worth another try: an Android message carries no collapse key, so
        /// one that may have arrived (no answer) is not sent again; an iOS one replaces itself.
        func advice(_ failure: ProviderFailure) -> RetryAdvice {
            self == .android && failure == .unanswered ? .never : RetryAdvice(failure)
        }
    }

    var lane: Lane
    var namespace: String
    var envelope: String
    var collapseId: String?
    /// The event's interruption level, for a relay that takes it.
    var level: AlertAttention.Level?

    var json: String {
        var object = JSONObject([("lane", .string(lane.rawValue)), ("namespace", .string(namespace)), ("envelope", .string(envelope))])
        if let collapseId { object["collapseId"] = .string(collapseId) }
        if let level { object["interruptionLevel"] = .string(level.rawValue) }
        return JSONValue.object(object).serialized()
    }

    init(lane: Lane, namespace: String, envelope: String, collapseId: String?, level: AlertAttention.Level? = nil) {
        self.lane = lane
        self.namespace = namespace
        self.envelope = envelope
        self.collapseId = collapseId
        self.level = level
    }

    /// Nil when `json` is not such a message.
    init?(json text: String) {
        guard let json = try? JSONValue.parse(text), let lane = json["lane"]?.stringValue.flatMap(Lane.init(rawValue:)),
              let namespace = json["namespace"]?.stringValue, let envelope = json["envelope"]?.stringValue else { return nil }
        self.init(lane: lane, namespace: namespace, envelope: envelope, collapseId: json["collapseId"]?.stringValue,
                  level: json["interruptionLevel"]?.stringValue.flatMap(AlertAttention.Level.init(rawValue:)))
    }
}
