/// Which APNs service a device token belongs to: production (App Store, TestFlight) or sandbox (development builds).
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}
