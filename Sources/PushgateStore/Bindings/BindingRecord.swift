/// One binding as stored: which host holds which token, and when it last registered it.
public struct BindingRecord: Sendable, Equatable {
    /// A binding's primary key, where the TTL sweep resumes.
    struct Key: Sendable, Equatable {
        var token: String
        var kind: String
        var serverId: String
    }

    public var token: String
    public var kind: BindingKind
    public var serverId: String
    /// The last register of this binding, milliseconds since the epoch.
    public var registeredAt: Int64
}
