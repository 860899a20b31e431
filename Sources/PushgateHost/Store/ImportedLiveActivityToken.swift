/// A Live Activity token carried over from an OpenChamber token file, kept for the Live
/// Activity engine: its activity, session, owner and snapshot rows as JSON text.
public struct ImportedLiveActivityToken: Sendable, Equatable {
    public var token: String
    public var activityId: String?
    public var sessionId: String?
    public var client: String?
    /// The snapshot rows, compact JSON (`[]` when the file had none).
    public var snapshotJSON: String

    public init(token: String, activityId: String?, sessionId: String?, client: String?, snapshotJSON: String) {
        self.token = token
        self.activityId = activityId
        self.sessionId = sessionId
        self.client = client
        self.snapshotJSON = snapshotJSON
    }
}
